package scenario

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/rewardsim/rewardsim/sim/internal/limit"
)

// LimitSwitches are the readings of a call refused by its channel's
// limit (docs/limits.md): the contract shows no such refusal, so its
// HTTP status and whether it says when to come back are switches; the
// body is always the endpoint's own platform failure.
type LimitSwitches struct {
	// Status is the refusal's HTTP status: 503 (default), 429, or 200
	// (the failure body alone says no).
	Status int `yaml:"status"`
	// RetryAfter sends a Retry-After header (whole seconds) with the
	// refusal; default true.
	RetryAfter *bool `yaml:"retryAfter"`
}

// The limit refusal's statuses (switches.limits.status).
var limitStatuses = []string{"503", "429", "200"}

// RetryAfterOn reports whether a limit refusal says Retry-After.
func (l LimitSwitches) RetryAfterOn() bool { return l.RetryAfter == nil || *l.RetryAfter }

// compileLimits checks the file's limits: each bounds something, within
// limit's bounds. A name need not be a channel of the file: a channel
// registered at run time under this scenario is held by it too.
func compileLimits(s *Scenario, fail func(ptr, msg string)) {
	if !slices.Contains(limitStatuses, strconv.Itoa(s.Switches.Limits.Status)) {
		fail("/switches/limits/status", fmt.Sprintf("%d is not one of %v", s.Switches.Limits.Status, limitStatuses))
	}
	for name, cfg := range s.Limits {
		if err := cfg.Check(); err != nil {
			fail("/limits/"+name, err.Error())
		}
	}
}

// LimitOf is the scenario's limit for channel (zero: none).
func (s *Scenario) LimitOf(channel string) limit.Config {
	return s.Limits[channel]
}
