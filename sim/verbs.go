package sim

import (
	"encoding/json"
	"slices"

	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
)

// FaultEndpoints lists the operations a fault rule can name (those that
// can show at least one fault kind), in the contract table's order: what
// the CLI's shell completion offers for --endpoint.
func FaultEndpoints() []string {
	var out []string
	for _, op := range contract.Ops {
		if len(fault.Shown(op.Name)) > 0 {
			out = append(out, op.Name)
		}
	}
	return out
}

// FaultKinds lists the fault kinds endpoint can show (fault.Shown); for
// "" or "*", every kind.
func FaultKinds(endpoint string) []string {
	if endpoint == "" || endpoint == "*" {
		return slices.Clone(fault.Kinds)
	}
	return fault.Shown(endpoint)
}

// ErrorCodes lists the coupon errorCodes a coupon-error fault may carry,
// read from the scenario schema's enum so the two never drift apart.
func ErrorCodes() []string {
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
