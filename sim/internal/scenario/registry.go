package scenario

import (
	"sync/atomic"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Registry holds the active scenario. Requests read it without locks; a
// load swaps it whole, so a request never sees half a scenario.
type Registry struct {
	active atomic.Pointer[Scenario]
}

// NewRegistry returns a registry serving s.
func NewRegistry(s *Scenario) *Registry {
	r := &Registry{}
	r.active.Store(s)
	return r
}

// Active is the scenario in force.
func (r *Registry) Active() *Scenario { return r.active.Load() }

// Activate puts s in force.
func (r *Registry) Activate(s *Scenario) { r.active.Store(s) }

// ByChannelID finds the channel with that CHANNELID and the scenario that governs it.
func (r *Registry) ByChannelID(id string) (model.Channel, *Scenario, bool) {
	s := r.Active()
	c, ok := s.ChannelByID(id)
	return c, s, ok
}

// ByChannelName finds the channel with that bName / channelName and the
// scenario that governs it. Bearer endpoints use it with a token's channel.
func (r *Registry) ByChannelName(name string) (model.Channel, *Scenario, bool) {
	s := r.Active()
	for _, c := range s.Channels {
		if c.Name == name {
			return c, s, true
		}
	}
	return model.Channel{}, s, false
}
