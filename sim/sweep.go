package sim

import (
	"context"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
)

const (
	// DefaultRetention is StateOptions.Retention's default.
	DefaultRetention = 24 * time.Hour
	// sweepBatch is how many tokens and how many sessions one sweep
	// transaction examines; sweepBatches bounds the transactions of one
	// tick, so a tick's work is bounded and each write is small.
	sweepBatch   = 500
	sweepBatches = 20
)

// sweepLoop deletes tokens and sessions expired longer than the retention,
// in simulated time, until ctx ends (issue 11 item 4).
func (s *Sim) sweepLoop(ctx context.Context) {
	tick := s.opts.State.SweepTick
	if tick <= 0 {
		tick = time.Second
	}
	clock.Every(ctx, tick, func() { s.sweepOnce(ctx) })
}

// sweepOnce runs sweep transactions until a full pass of both buckets ends
// or sweepBatches ran; the next tick resumes where this one stopped.
func (s *Sim) sweepOnce(ctx context.Context) {
	retention := s.opts.State.Retention
	if retention == 0 {
		retention = DefaultRetention
	}
	cutoff := s.opts.Clock.Now().Add(-retention)
	for range sweepBatches {
		if ctx.Err() != nil {
			return
		}
		res, err := s.store.Sweep(cutoff, sweepBatch)
		if err != nil {
			s.log.Warn("state sweep", "err", err)
			return
		}
		if res.Tokens+res.Sessions > 0 {
			s.log.Debug("state sweep", "tokens", res.Tokens, "sessions", res.Sessions)
		}
		if res.Wrapped {
			return
		}
	}
}
