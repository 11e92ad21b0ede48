package clock

import (
	"fmt"
	"sync"
	"time"
)

// Controller is a clock the control API can move without saving it: the
// Fake of tests. (Sim, the one a served simulator runs on, saves each
// move and so can fail one: its methods return errors.)
type Controller interface {
	Clock
	Set(time.Time)
	Advance(time.Duration)
}

// Modes of a Sim clock.
const (
	// Real follows the wall clock.
	ModeReal = "real"
	// Offset follows the wall clock shifted by a fixed offset.
	ModeOffset = "offset"
	// Frozen stands still until set or advanced.
	ModeFrozen = "frozen"
)

// State is a Sim clock's persistent form.
type State struct {
	Mode   string        `json:"mode"`
	Frozen time.Time     `json:"frozen,omitzero"`
	Offset time.Duration `json:"offset"`
}

// Sim is the simulated clock of a served simulator: real, offset or
// frozen. Set and Advance keep the mode (Set on a real clock turns it into
// an offset clock). Every change is first handed to save (the simulator
// persists it) and takes effect only if save succeeds, so the saved state
// is always the state in force.
type Sim struct {
	mu sync.Mutex
	// saveMu keeps changes and their saves in one order, so the last
	// saved state is the last state; Now never waits on it.
	saveMu sync.Mutex
	st     State
	wall   func() time.Time
	save   func(State) error
}

// NewSim returns a Sim clock in state st (the zero State is real time);
// wall is the wall clock (nil: time.Now); save keeps each new state
// before it takes effect (nil: nothing is kept).
func NewSim(st State, wall func() time.Time, save func(State) error) *Sim {
	if wall == nil {
		wall = time.Now
	}
	if save == nil {
		save = func(State) error { return nil }
	}
	if st.Mode == "" {
		st.Mode = ModeReal
	}
	return &Sim{st: st, wall: wall, save: save}
}

// Now tells the simulated time.
func (s *Sim) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nowLocked()
}

func (s *Sim) nowLocked() time.Time {
	switch s.st.Mode {
	case ModeFrozen:
		return s.st.Frozen
	case ModeOffset:
		return s.wall().Add(s.st.Offset)
	default:
		return s.wall()
	}
}

// change computes the next state from the current one and the wall
// clock, saves it, and only then puts it in force.
func (s *Sim) change(next func(cur State, now, wall time.Time) State) error {
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	s.mu.Lock()
	st := next(s.st, s.nowLocked(), s.wall())
	s.mu.Unlock()
	if err := s.save(st); err != nil {
		return err
	}
	s.mu.Lock()
	s.st = st
	s.mu.Unlock()
	return nil
}

// Mode returns the clock's state.
func (s *Sim) Mode() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st
}

// Move switches to mode ("" keeps the mode) keeping the current simulated
// time, then puts the clock at t (zero t keeps the time), as one change.
func (s *Sim) Move(mode string, t time.Time) error {
	if mode != "" && mode != ModeReal && mode != ModeOffset && mode != ModeFrozen {
		return fmt.Errorf("clock mode %q is not one of real, offset, frozen", mode)
	}
	return s.change(func(st State, now, wall time.Time) State {
		if mode != "" {
			st = State{Mode: mode}
			switch mode {
			case ModeFrozen:
				st.Frozen = now
			case ModeOffset:
				st.Offset = now.Sub(wall)
			}
		}
		if !t.IsZero() {
			if st.Mode == ModeFrozen {
				st.Frozen = t
			} else {
				st = State{Mode: ModeOffset, Offset: t.Sub(wall)}
			}
		}
		return st
	})
}

// SetMode switches mode keeping the current simulated time.
func (s *Sim) SetMode(mode string) error { return s.Move(mode, time.Time{}) }

// Set puts the clock at t.
func (s *Sim) Set(t time.Time) error { return s.Move("", t) }

// Advance moves the clock by d.
func (s *Sim) Advance(d time.Duration) error {
	return s.change(func(st State, _, _ time.Time) State {
		if st.Mode == ModeFrozen {
			st.Frozen = st.Frozen.Add(d)
			return st
		}
		return State{Mode: ModeOffset, Offset: st.Offset + d}
	})
}
