package scenario

import (
	"sync/atomic"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Registry holds the active scenario. Requests read it without locks; a
// load swaps it whole, so a request never sees half a scenario.
type Registry struct {
	active atomic.Pointer[Scenario]
	multi  atomic.Pointer[snapshot] // see multi.go
}

// NewRegistry returns a registry serving s.
func NewRegistry(s *Scenario) *Registry {
	r := &Registry{}
	r.active.Store(s)
	return r
}

// Active is the scenario in force.
func (r *Registry) Active() *Scenario { return r.active.Load() }

// Activate puts s in force (and keeps it among the loaded scenarios).
func (r *Registry) Activate(s *Scenario) {
	r.Load(s)
	r.active.Store(s)
}

// ByChannelID finds the channel with that CHANNELID and the scenario that governs it.
func (r *Registry) ByChannelID(id string) (model.Channel, *Scenario, bool) {
	return r.lookup(func(c model.Channel) bool { return c.ChannelID == id })
}

// ByChannelName finds the channel with that bName / channelName and the
// scenario that governs it. Bearer endpoints use it with a token's channel.
func (r *Registry) ByChannelName(name string) (model.Channel, *Scenario, bool) {
	return r.lookup(func(c model.Channel) bool { return c.Name == name })
}
