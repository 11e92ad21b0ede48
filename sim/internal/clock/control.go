package clock

import (
	"fmt"
	"sync"
	"time"
)

// Controller is a clock the control API can move. Fake is one; Sim is the
// one a served simulator runs on.
type Controller interface {
	Clock
	Set(time.Time)
	Advance(time.Duration)
}

// Moder is a Controller whose mode can change (Sim; a Fake is always frozen).
type Moder interface {
	Mode() State
	SetMode(mode string) error
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
// an offset clock). OnChange, if set, is called with the new state after
// every change (the simulator persists it).
type Sim struct {
	mu sync.Mutex
	// saveMu keeps changes and their OnChange calls in one order, so the
	// last saved state is the last state; Now never waits on it.
	saveMu   sync.Mutex
	st       State
	wall     func() time.Time
	OnChange func(State)
}

// NewSim returns a Sim clock in state st (the zero State is real time);
// wall is the wall clock (nil: time.Now).
func NewSim(st State, wall func() time.Time) *Sim {
	if wall == nil {
		wall = time.Now
	}
	if st.Mode == "" {
		st.Mode = ModeReal
	}
	return &Sim{st: st, wall: wall}
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

func (s *Sim) change(f func()) {
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	s.mu.Lock()
	f()
	st := s.st
	s.mu.Unlock()
	if s.OnChange != nil {
		s.OnChange(st)
	}
}

// Mode returns the clock's state.
func (s *Sim) Mode() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st
}

// SetMode switches mode keeping the current simulated time.
func (s *Sim) SetMode(mode string) error {
	if mode != ModeReal && mode != ModeOffset && mode != ModeFrozen {
		return fmt.Errorf("clock mode %q is not one of real, offset, frozen", mode)
	}
	s.change(func() {
		now := s.nowLocked()
		s.st = State{Mode: mode}
		switch mode {
		case ModeFrozen:
			s.st.Frozen = now
		case ModeOffset:
			s.st.Offset = now.Sub(s.wall())
		}
	})
	return nil
}

// Set puts the clock at t.
func (s *Sim) Set(t time.Time) {
	s.change(func() {
		if s.st.Mode == ModeFrozen {
			s.st.Frozen = t
			return
		}
		s.st = State{Mode: ModeOffset, Offset: t.Sub(s.wall())}
	})
}

// Advance moves the clock by d.
func (s *Sim) Advance(d time.Duration) {
	s.change(func() {
		if s.st.Mode == ModeFrozen {
			s.st.Frozen = s.st.Frozen.Add(d)
			return
		}
		s.st = State{Mode: ModeOffset, Offset: s.st.Offset + d}
	})
}
