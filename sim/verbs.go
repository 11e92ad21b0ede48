package sim

import (
	"slices"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
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

// ErrorCodes lists the coupon errorCodes a coupon-error fault may carry
// (the scenario schema's enum).
func ErrorCodes() []string { return schema.FaultErrorCodes() }
