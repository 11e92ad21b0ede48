package state

import (
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// maxGroup bounds the calls one group commit carries.
const maxGroup = 1000

// A busy group of fewer than gatherBelow calls waits Options.GroupWait
// (default DefaultGroupWait) before its commit, and again while calls
// keep arriving, at most gatherRounds times, so calls arriving meanwhile
// share it: a commit costs about the same for one call as for eight. In
// interleaved make load runs (8 and 200 µs against none) a GetReward's
// server CPU fell by about a fifth; the signed calls' gain was within
// this machine's noise.
const (
	gatherBelow  = 8
	gatherRounds = 4
	// DefaultGroupWait is Options.GroupWait's default.
	DefaultGroupWait = 200 * time.Microsecond
)

// group is a leader-based group commit. db.Batch starts a new batch
// after a timer (MaxBatchDelay) even while the previous one is still
// committing, so under load its batches queue up small, one commit (and, unless
// NoSync, one fsync) each.
// Here every call that arrives while a commit runs joins the next commit,
// which starts as soon as the previous one ends: the batch grows with
// the load and no call waits on a timer. A lone call (no other pending,
// no commit ended within the last gatherRounds waits) commits at once.
type group struct {
	mu      sync.Mutex
	pending []groupCall
	leading bool
	leaders sync.WaitGroup // the leader goroutine, waited for by Close
	commits atomic.Int64   // group commits made (tests)
	// wait is Options.GroupWait: how long a busy small group waits for
	// company (0: none).
	wait time.Duration
	// lastEnd is when the last commit ended: a call arriving soon after
	// it is not alone.
	lastEnd time.Time
	// hook is Options.TxHook; log is Options.Log.
	hook func()
	log  *slog.Logger
}

type groupCall struct {
	fn  func(*bolt.Tx) error
	err chan error
}

// PanicError is a caller's function that panicked inside a group
// commit: the panic is that caller's error, never the process's death
// (the function runs on another goroutine, out of reach of the caller's
// own recover).
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("panic in a store transaction: %v", e.Value)
}

// groupUpdate runs fn in a write transaction shared with concurrent
// callers. Like db.Batch, fn must be idempotent: when a function of a
// group fails, the group is rolled back, the failing function is run
// again alone (its error may come from another's write) and the others
// again together. A function that panics is not run again: its caller
// gets a *PanicError.
func (s *Store) groupUpdate(fn func(*bolt.Tx) error) error {
	c := groupCall{fn: fn, err: make(chan error, 1)}
	g := &s.group
	g.mu.Lock()
	g.pending = append(g.pending, c)
	if !g.leading {
		g.leading = true
		g.leaders.Add(1)
		go s.leadGroup()
	}
	g.mu.Unlock()
	return <-c.err
}

func (s *Store) leadGroup() {
	g := &s.group
	defer g.leaders.Done()
	var ended time.Time
	for {
		g.mu.Lock()
		if !ended.IsZero() {
			g.lastEnd = ended
		}
		// A small busy group waits a moment for company: a commit costs
		// about the same for one call as for ten. It waits again while
		// calls keep coming (up to gatherRounds): under load a commit of
		// one or two tokens was common, each paying a whole commit. A
		// lone call does not wait: nobody is coming. A call within
		// gatherRounds waits of the last commit's end is not alone
		// (waiting only when calls arrived during a commit, or within one
		// wait of its end, made groups smaller and commits more in
		// the sim benchmarks on a busy machine, where a leader is often
		// scheduled late).
		busy := len(g.pending) > 1 || time.Since(g.lastEnd) < gatherRounds*g.wait
		for round := 0; busy && g.wait > 0 && round < gatherRounds && len(g.pending) < gatherBelow; round++ {
			had := len(g.pending)
			g.mu.Unlock()
			time.Sleep(g.wait)
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
		s.commitGroup(calls)
		ended = time.Now()
	}
}

// commitGroup commits calls in one transaction and answers each. When a
// call fails, the transaction is rolled back; the failed call gets its
// error (run again alone first, unless it panicked) and the rest are
// committed again without it, as bbolt's Batch does.
func (s *Store) commitGroup(calls []groupCall) {
	for len(calls) > 0 {
		s.group.commits.Add(1)
		failed, ferr := -1, error(nil)
		err := s.db.Update(func(tx *bolt.Tx) error {
			for i, c := range calls {
				if err := s.runCall(c.fn, tx); err != nil {
					failed, ferr = i, err
					return err
				}
			}
			return nil
		})
		if failed < 0 { // committed, or the commit itself failed
			for _, c := range calls {
				c.err <- err
			}
			return
		}
		c := calls[failed]
		calls = append(calls[:failed:failed], calls[failed+1:]...)
		if _, panicked := ferr.(*PanicError); !panicked {
			ferr = s.db.Update(func(tx *bolt.Tx) error { return s.runCall(c.fn, tx) })
		}
		c.err <- ferr
	}
}

// runCall runs one caller's function, its panic turned into its error.
func (s *Store) runCall(fn func(*bolt.Tx) error, tx *bolt.Tx) (err error) {
	defer func() {
		if v := recover(); v != nil {
			p := &PanicError{Value: v, Stack: debug.Stack()}
			if s.group.log != nil {
				s.group.log.Error("panic in a store transaction", "panic", fmt.Sprint(v), "stack", string(p.Stack))
			}
			err = p
		}
	}()
	if s.group.hook != nil {
		s.group.hook()
	}
	return fn(tx)
}
