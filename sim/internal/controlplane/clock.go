package controlplane

import (
	"errors"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
)

const clockKey = "sim"

// restoreClock is the saved simulated clock, which saves every move.
func (p *Plane) restoreClock() (*clock.Sim, error) {
	var st clock.State
	if err := p.store.GetConfig(kindClock, clockKey, &st); err != nil && !errors.Is(err, model.ErrNotFound) {
		return nil, err
	}
	return clock.NewSim(st, nil, func(st clock.State) error {
		return p.store.WriteConfig(put(kindClock, clockKey, st))
	}), nil
}

// The simulated time stays where every part can represent it: the journal
// keeps Unix nanoseconds (years 1678 to 2262) and JSON times need years
// 0 to 9999. Outside, answers and the saved clock would break.
var clockMin, clockMax = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC)

const clockRange = "1970-01-01 to 2262-01-01 (UTC)"

func inClockRange(t time.Time) bool { return !t.Before(clockMin) && t.Before(clockMax) }

// ClockView is the clock as the control API shows it.
type ClockView struct {
	Now    time.Time
	Mode   string
	Offset time.Duration
}

// ClockView tells the time and how the clock runs: the saved clock's
// mode; frozen for a test clock that only moves when told; real for a
// clock that cannot be moved.
func (p *Plane) ClockView() ClockView {
	v := ClockView{Now: p.clock.Now(), Mode: clock.ModeReal}
	switch c := p.clock.(type) {
	case *clock.Sim:
		st := c.Mode()
		v.Mode, v.Offset = st.Mode, st.Offset
	case clock.Controller:
		v.Mode = clock.ModeFrozen
	}
	return v
}

// SetClock switches the mode ("" keeps it) and/or puts the clock at t
// (zero t keeps the time), as one change.
func (p *Plane) SetClock(mode string, t time.Time) error {
	if !t.IsZero() && !inClockRange(t) {
		return refuse(refusal.Invalid, "time %s is outside %s", t.Format(time.RFC3339), clockRange)
	}
	switch c := p.clock.(type) {
	case *clock.Sim:
		if mode == "" && t.IsZero() {
			return nil // nothing to change, nothing to save
		}
		if mode != "" && mode != clock.ModeReal && mode != clock.ModeOffset && mode != clock.ModeFrozen {
			return refuse(refusal.Invalid, "clock mode %q is not one of real, offset, frozen", mode)
		}
		return c.Move(mode, t)
	case clock.Controller:
		if mode != "" && mode != clock.ModeFrozen {
			return refuse(refusal.Conflict, "this simulator runs on a test clock that is always frozen")
		}
		if !t.IsZero() {
			c.Set(t)
		}
	default:
		return refuse(refusal.Conflict, "this simulator runs on a clock that cannot be moved")
	}
	return nil
}

// AdvanceClock moves the clock by d.
func (p *Plane) AdvanceClock(d time.Duration) error {
	if !inClockRange(p.clock.Now().Add(d)) {
		return refuse(refusal.Invalid, "advancing by %s would move the clock outside %s", d, clockRange)
	}
	switch c := p.clock.(type) {
	case *clock.Sim:
		return c.Advance(d)
	case clock.Controller:
		c.Advance(d)
		return nil
	}
	return refuse(refusal.Conflict, "this simulator runs on a clock that cannot be moved")
}
