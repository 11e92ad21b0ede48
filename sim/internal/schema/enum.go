package schema

import (
	"encoding/json"

	"github.com/rewardsim/rewardsim/schemas"
)

// FaultErrorCodes lists the coupon errorCodes a coupon-error fault may
// carry, read from the scenario schema's enum, so the CLI's completion
// and the dashboard's select never drift from what a rule accepts.
func FaultErrorCodes() []string {
	raw, err := schemas.FS.ReadFile("scenario.json")
	if err != nil {
		return nil
	}
	var s struct {
		Defs struct {
			Fault struct {
				Properties struct {
					Action struct {
						Properties struct {
							ErrorCode struct {
								Enum []string `json:"enum"`
							} `json:"errorCode"`
						} `json:"properties"`
					} `json:"action"`
				} `json:"properties"`
			} `json:"fault"`
		} `json:"$defs"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	return s.Defs.Fault.Properties.Action.Properties.ErrorCode.Enum
}
