package schema

import (
	"encoding/json"

	"github.com/rewardsim/rewardsim/schemas"
)

// FaultErrorCodes lists the coupon errorCodes a coupon-error fault may
// carry, read from the scenario schema's enum, so the CLI's completion
// and the dashboard's select never drift from what a rule accepts.
func FaultErrorCodes() []string { return faultActionEnums().ErrorCode.Enum }

// FaultKinds lists the action kinds a fault rule may name, read from the
// scenario schema's enum (checked against fault.Kinds and the libraries).
func FaultKinds() []string { return faultActionEnums().Kind.Enum }

type enum struct {
	Enum []string `json:"enum"`
}

type faultActionProperties struct {
	Kind      enum `json:"kind"`
	ErrorCode enum `json:"errorCode"`
}

// faultActionEnums is the scenario schema's fault action, its enums only.
func faultActionEnums() faultActionProperties {
	var s struct {
		Defs struct {
			Fault struct {
				Properties struct {
					Action struct {
						Properties faultActionProperties `json:"properties"`
					} `json:"action"`
				} `json:"properties"`
			} `json:"fault"`
		} `json:"$defs"`
	}
	raw, err := schemas.FS.ReadFile("scenario.json")
	if err != nil || json.Unmarshal(raw, &s) != nil {
		return faultActionProperties{}
	}
	return s.Defs.Fault.Properties.Action.Properties
}
