package sim

import (
	"context"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
)

const (
	// DefaultRetention is StateOptions.Retention's default.
	DefaultRetention = 24 * time.Hour
	// purgeBatch is how many tokens and how many sessions one purge
	// transaction examines; purgeBatches bounds the transactions of one
	// tick, so a tick's work is bounded and each write is small.
	purgeBatch   = 500
	purgeBatches = 20
)

// purgeLoop deletes tokens and sessions expired longer than the retention,
// in simulated time, until ctx ends (issue 11 item 4).
func (s *Sim) purgeLoop(ctx context.Context) {
	tick := s.opts.State.PurgeTick
	if tick <= 0 {
		tick = time.Second
	}
	clock.Every(ctx, tick, func() { s.purgeOnce(ctx) })
}

// purgeOnce runs purge transactions until a full pass of both buckets ends
// or purgeBatches ran; the next tick resumes where this one stopped.
func (s *Sim) purgeOnce(ctx context.Context) {
	retention := s.opts.State.Retention
	if retention == 0 {
		retention = DefaultRetention
	}
	cutoff := s.opts.Clock.Now().Add(-retention)
	for range purgeBatches {
		if ctx.Err() != nil {
			return
		}
		res, err := s.store.Purge(cutoff, purgeBatch)
		if err != nil {
			s.log.Warn("state purge", "err", err)
			return
		}
		if res.Tokens+res.Sessions > 0 {
			s.log.Debug("state purge", "tokens", res.Tokens, "sessions", res.Sessions)
		}
		if res.Wrapped {
			return
		}
	}
}
