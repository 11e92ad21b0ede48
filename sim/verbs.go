package sim

import (
	"slices"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
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

// SwitchInfo is a behaviour switch as the CLI completes and checks it.
type SwitchInfo struct {
	// Name is the short name the CLI takes (coupons.duplicate).
	Name string
	// Values are the values it takes; nil for a free integer or
	// duration (Allowed says which).
	Values           []string
	Default, Allowed string
	Doc              string
}

// Switches lists the behaviour switches (scenario.SwitchTable), in the
// docs' order: what the CLI's shell completion offers for switch set.
func Switches() []SwitchInfo {
	var out []SwitchInfo
	for _, d := range scenario.SwitchTable {
		out = append(out, SwitchInfo{Name: d.Short(), Values: slices.Clone(d.Values), Default: d.Default, Allowed: d.Allowed(), Doc: d.Doc})
	}
	return out
}
