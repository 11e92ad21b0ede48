package controlapi

import (
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// A fault rule's shape is the simulator's own (sim/internal/fault), not
// a copy: the client posts and reads the very type the control API binds
// and a scenario file's faults[] decode into, so a field is added once.
// The aliases let a caller outside sim (the rewardsim command) name it.
type (
	// FaultRule is the body of POST /__sim/faults.
	FaultRule = fault.Rule
	// FaultAction is what a rule makes its endpoint do.
	FaultAction = fault.Action
	// FaultStatus is a rule with its counters, as the control API gives it.
	FaultStatus = fault.Status
	// Duration is a duration as control bodies write it ("3s"), such as
	// FaultAction.Delay.
	Duration = model.Duration
)

// FaultList is the answer of GET /__sim/faults.
type FaultList struct {
	Rules []FaultStatus `json:"rules"`
}
