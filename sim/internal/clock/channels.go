package clock

import (
	"sync"
	"time"
)

// Channels is the global clock with the channels that keep a clock of
// their own (issue 20): a channel's own clock moves only when that
// channel's clock is moved, and the global clock moves every channel
// without one. Now is the global time; For(channel) a channel's.
type Channels struct {
	Clock
	mu  sync.RWMutex
	own map[string]*Sim
}

// NewChannels wraps the global clock g.
func NewChannels(g Clock) *Channels { return &Channels{Clock: g, own: map[string]*Sim{}} }

// For is the clock of channel: its own, or the global one.
func (c *Channels) For(channel string) Clock {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if s, ok := c.own[channel]; ok {
		return s
	}
	return c.Clock
}

// Own is channel's own clock, if it has one.
func (c *Channels) Own(channel string) (*Sim, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	s, ok := c.own[channel]
	return s, ok
}

// OwnClock is Own as a Clock (PerChannel).
func (c *Channels) OwnClock(channel string) (Clock, bool) {
	s, ok := c.Own(channel)
	if !ok {
		return nil, false
	}
	return s, true
}

// Put gives channel its own clock s.
func (c *Channels) Put(channel string, s *Sim) {
	c.mu.Lock()
	c.own[channel] = s
	c.mu.Unlock()
}

// Drop takes channel's own clock away: the global clock governs it again.
func (c *Channels) Drop(channel string) {
	c.mu.Lock()
	delete(c.own, channel)
	c.mu.Unlock()
}

// PerChannel is the clock the services are handed: the global time, and
// the time of one channel (its own clock or the global one). The
// composition root passes the control plane's Channels; a service never
// asks which kind of clock it holds.
type PerChannel interface {
	Clock
	For(channel string) Clock
	// OwnClock is channel's own clock, if it keeps one (the journal
	// stamps such a channel's entries on it).
	OwnClock(channel string) (Clock, bool)
}

// One is a PerChannel with one clock for every channel (a service's own
// tests, tools without channels).
type One struct{ Clock }

// For is the one clock.
func (o One) For(string) Clock { return o.Clock }

// OwnClock: no channel keeps a clock of its own.
func (One) OwnClock(string) (Clock, bool) { return nil, false }

// NowFor is c.For(channel).Now(); channel "" is the global time.
func NowFor(c PerChannel, channel string) time.Time {
	if channel == "" {
		return c.Now()
	}
	return c.For(channel).Now()
}
