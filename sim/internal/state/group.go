package state

import (
	"cmp"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// maxGroup bounds the calls one group commit carries.
const maxGroup = 1000

// A group of fewer than gatherBelow calls waits gatherFor before its
// commit, and again while calls keep arriving, at most gatherRounds
// times, so calls arriving meanwhile share it: a commit costs about
// the same for one call as for eight. In interleaved make load runs (8
// and 200 µs against none) a GetReward's server CPU fell by about a
// fifth; the signed calls' gain was within this machine's noise.
const (
	gatherBelow  = 8
	gatherFor    = 200 * time.Microsecond
	gatherRounds = 4
)

// group is a leader-based group commit. db.Batch starts a new batch
// after a timer (MaxBatchDelay) even while the previous one is still
// committing, so under load its batches queue up small, one commit (and, unless
// NoSync, one fsync) each.
// Here every call that arrives while a commit runs joins the next commit,
// which starts as soon as the previous one ends: the batch grows with
// the load and no call waits on a timer.
type group struct {
	mu      sync.Mutex
	pending []groupCall
	leading bool
	commits atomic.Int64 // group commits made (tests)
	// gather is gatherFor unless a test widens it before any call.
	gather time.Duration
}

type groupCall struct {
	fn  func(*bolt.Tx) error
	err chan error
}

// groupUpdate runs fn in a write transaction shared with concurrent
// callers. Like db.Batch, fn must be idempotent: when any function of a
// group fails, every function of the group is run again alone.
func (s *Store) groupUpdate(fn func(*bolt.Tx) error) error {
	c := groupCall{fn: fn, err: make(chan error, 1)}
	g := &s.group
	g.mu.Lock()
	g.pending = append(g.pending, c)
	if !g.leading {
		g.leading = true
		go s.leadGroup()
	}
	g.mu.Unlock()
	return <-c.err
}

func (s *Store) leadGroup() {
	g := &s.group
	for {
		g.mu.Lock()
		// A small group waits a moment for company: a commit costs
		// about the same for one call as for ten. It waits again while
		// calls keep coming (up to gatherRounds): under load a commit
		// of one or two tokens was common, each paying a whole commit;
		// a lone call still waits one round.
		for round := 0; round < gatherRounds && len(g.pending) < gatherBelow; round++ {
			had := len(g.pending)
			g.mu.Unlock()
			time.Sleep(cmp.Or(g.gather, gatherFor))
			g.mu.Lock()
			if len(g.pending) == had {
				break
			}
		}
		calls := g.pending
		if len(calls) > maxGroup {
			calls, g.pending = calls[:maxGroup:maxGroup], calls[maxGroup:]
		} else {
			g.pending = nil
		}
		if len(calls) == 0 {
			g.leading = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		g.commits.Add(1)
		err := s.db.Update(func(tx *bolt.Tx) error {
			for _, c := range calls {
				if err := c.fn(tx); err != nil {
					return err
				}
			}
			return nil
		})
		for _, c := range calls {
			if err == nil {
				c.err <- nil
				continue
			}
			c.err <- s.db.Update(c.fn)
		}
	}
}
