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

// For is the clock of channel when c keeps clocks per channel, else c.
func For(c Clock, channel string) Clock {
	if cs, ok := c.(*Channels); ok && channel != "" {
		return cs.For(channel)
	}
	return c
}

// NowFor is For(c, channel).Now().
func NowFor(c Clock, channel string) time.Time { return For(c, channel).Now() }
