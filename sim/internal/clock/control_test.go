package clock_test

import (
	"errors"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
)

// clause: SIM-3
// The Sim clock's modes: real follows the wall clock, offset follows it
// shifted, frozen stands still; Set and Advance keep the mode (a real
// clock that is moved becomes an offset clock); every change is reported
// for persistence, and a clock rebuilt from the reported state tells the
// same time.
func TestSimClock_SIM3_modes(t *testing.T) {
	wall := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	wallFn := func() time.Time { return wall }
	var saved clock.State
	c := clock.NewSim(clock.State{}, wallFn, func(st clock.State) error { saved = st; return nil })

	steps := []struct {
		name     string
		do       func()
		wallStep time.Duration
		want     time.Time
		mode     string
	}{
		{"real by default", func() {}, time.Minute, wall.Add(time.Minute), clock.ModeReal},
		{"advance turns real into offset", func() { _ = c.Advance(time.Hour) }, time.Minute, wall.Add(2*time.Minute + time.Hour), clock.ModeOffset},
		{"freeze keeps the time", func() { _ = c.SetMode(clock.ModeFrozen) }, time.Minute, wall.Add(2*time.Minute + time.Hour), clock.ModeFrozen},
		{"frozen advance", func() { _ = c.Advance(30 * time.Minute) }, time.Hour, wall.Add(2*time.Minute + 90*time.Minute), clock.ModeFrozen},
		{"frozen set", func() { _ = c.Set(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)) }, time.Hour, time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), clock.ModeFrozen},
		{"offset keeps the time and runs", func() { _ = c.SetMode(clock.ModeOffset) }, time.Minute, time.Date(2027, 1, 1, 0, 1, 0, 0, time.UTC), clock.ModeOffset},
		{"real again", func() { _ = c.SetMode(clock.ModeReal) }, time.Second, wall.Add(time.Second), clock.ModeReal},
	}
	for _, st := range steps {
		before := wall
		st.do()
		wall = wall.Add(st.wallStep)
		if st.name == "real again" {
			st.want = wall
		}
		if got := c.Now(); !got.Equal(st.want) || c.Mode().Mode != st.mode {
			t.Errorf("%s: now %v mode %s, want %v %s (wall moved from %v)", st.name, got, c.Mode().Mode, st.want, st.mode, before)
		}
		if restored := clock.NewSim(saved, wallFn, nil); st.name != "real by default" && !restored.Now().Equal(c.Now()) {
			t.Errorf("%s: a clock rebuilt from the saved state says %v, want %v", st.name, restored.Now(), c.Now())
		}
	}
	if err := c.SetMode("warp"); err == nil {
		t.Error("mode warp was accepted")
	}
}

// clause: SIM-3
// A change whose save fails does not take effect: the clock in force is
// always the one saved.
func TestSimClock_SIM3_failedSaveKeepsTheClock(t *testing.T) {
	wall := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	full := errors.New("disk full")
	c := clock.NewSim(clock.State{Mode: clock.ModeFrozen, Frozen: wall}, nil, func(clock.State) error { return full })
	for name, move := range map[string]func() error{
		"advance":  func() error { return c.Advance(time.Hour) },
		"set":      func() error { return c.Set(wall.Add(time.Hour)) },
		"set mode": func() error { return c.SetMode(clock.ModeReal) },
		"move":     func() error { return c.Move(clock.ModeOffset, wall.Add(time.Hour)) },
	} {
		if err := move(); !errors.Is(err, full) {
			t.Errorf("%s: err = %v, want the save's", name, err)
		}
		if st := c.Mode(); st.Mode != clock.ModeFrozen || !c.Now().Equal(wall) {
			t.Errorf("%s: clock moved to %+v although its save failed", name, st)
		}
	}
}
