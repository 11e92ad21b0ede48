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

// timeOrZero is t, or the zero time the clock's Move reads as "keep the time".
func timeOrZero(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

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

// checkClockTime refuses a time the clock may not be put at. A time is
// a pointer so that one given as the zero time (0001-01-01T00:00:00Z) is
// refused, not taken for no time at all.
func checkClockTime(t *time.Time) error {
	if t != nil && !inClockRange(*t) {
		return refuse(refusal.Invalid, "time %s is outside %s", t.Format(time.RFC3339), clockRange)
	}
	return nil
}

// SetClock switches the mode ("" keeps it) and/or puts the clock at t
// (nil keeps the time), as one change.
func (p *Plane) SetClock(mode string, t *time.Time) error {
	if err := checkClockTime(t); err != nil {
		return err
	}
	switch c := p.clock.(type) {
	case *clock.Sim:
		if mode == "" && t == nil {
			return nil // nothing to change, nothing to save
		}
		if mode != "" && mode != clock.ModeReal && mode != clock.ModeOffset && mode != clock.ModeFrozen {
			return refuse(refusal.Invalid, "clock mode %q is not one of real, offset, frozen", mode)
		}
		return c.Move(mode, timeOrZero(t))
	case clock.Controller:
		if mode != "" && mode != clock.ModeFrozen {
			return refuse(refusal.Conflict, "this simulator runs on a test clock that is always frozen")
		}
		if t != nil {
			c.Set(*t)
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

// channelClock is a channel's own clock as the store keeps it.
type channelClock struct {
	Channel string `json:"channel"`
	clock.State
}

func channelClockKey(channel string) string { return "channel/" + channel }

// newChannelClock is a channel's own clock starting where the global
// clock stands now, in its mode; saved on every move when the global
// clock is (a served simulator's), else kept in memory (a test clock).
func (p *Plane) newChannelClock(channel string, st *clock.State) *clock.Sim {
	var save func(clock.State) error
	var wall func() time.Time
	switch g := p.clock.(type) {
	case *clock.Sim:
		if st == nil {
			cur := g.Mode()
			st = &cur
		}
		save = func(s clock.State) error {
			return p.store.WriteConfig(put(kindClock, channelClockKey(channel), channelClock{channel, s}))
		}
	default:
		if st == nil {
			st = &clock.State{Mode: clock.ModeFrozen, Frozen: g.Now()}
		}
		wall = g.Now
	}
	return clock.NewSim(*st, wall, save)
}

// restoreChannelClocks puts back the saved channel clocks.
func (p *Plane) restoreChannelClocks() {
	restore(p, kindClock, func(cc channelClock) error {
		if cc.Channel != "" {
			st := cc.State
			p.clocks.Put(cc.Channel, p.newChannelClock(cc.Channel, &st))
		}
		return nil
	})
}

// channelOwn is channel's own clock, made on first use; the channel
// must be known.
func (p *Plane) channelOwn(channel string) (*clock.Sim, error) {
	if s, ok := p.clocks.Own(channel); ok {
		return s, nil
	}
	if err := p.knownChannel(channel); err != nil {
		return nil, err
	}
	switch p.clock.(type) {
	case *clock.Sim, clock.Controller:
	default:
		return nil, refuse(refusal.Conflict, "this simulator runs on a clock that cannot be moved")
	}
	s := p.newChannelClock(channel, nil)
	p.clocks.Put(channel, s)
	return s, nil
}

// ChannelClockView is channel's time; Own says whether it has its own clock.
func (p *Plane) ChannelClockView(channel string) (ClockView, bool, error) {
	if err := p.knownChannel(channel); err != nil {
		return ClockView{}, false, err
	}
	s, ok := p.clocks.Own(channel)
	if !ok {
		return p.ClockView(), false, nil
	}
	st := s.Mode()
	return ClockView{Now: s.Now(), Mode: st.Mode, Offset: st.Offset}, true, nil
}

// SetChannelClock is SetClock for channel's own clock (made on first use).
func (p *Plane) SetChannelClock(channel, mode string, t *time.Time) error {
	if err := checkClockTime(t); err != nil {
		return err
	}
	if mode != "" && mode != clock.ModeReal && mode != clock.ModeOffset && mode != clock.ModeFrozen {
		return refuse(refusal.Invalid, "clock mode %q is not one of real, offset, frozen", mode)
	}
	s, err := p.channelOwn(channel)
	if err != nil {
		return err
	}
	return s.Move(mode, timeOrZero(t)) // with neither, saves the new clock
}

// AdvanceChannelClock is AdvanceClock for channel's own clock.
func (p *Plane) AdvanceChannelClock(channel string, d time.Duration) error {
	s, err := p.channelOwn(channel)
	if err != nil {
		return err
	}
	if !inClockRange(s.Now().Add(d)) {
		return refuse(refusal.Invalid, "advancing by %s would move the clock outside %s", d, clockRange)
	}
	return s.Advance(d)
}

// DropChannelClock hands channel back to the global clock.
func (p *Plane) DropChannelClock(channel string) error {
	if _, ok := p.clocks.Own(channel); !ok {
		return refuse(refusal.NotFound, "channel %q has no clock of its own", channel)
	}
	if err := p.store.WriteConfig(del(kindClock, channelClockKey(channel))); err != nil {
		return err
	}
	p.clocks.Drop(channel)
	return nil
}
