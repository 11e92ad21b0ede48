package limit

import (
	"context"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
)

// Set is every channel's limiter: the limits set at run time (the control
// plane's, which override a scenario's) and those a scenario file gives,
// handed in with each call. The one owner of the limiters' state.
type Set struct {
	mu   sync.Mutex
	over map[string]Config   // set at run time, by channel
	lims map[string]*Limiter // in force, by channel
	// busy is len(lims): a call of a channel with no limit, on a box with
	// none, passes without taking the lock.
	busy atomic.Int32
}

// Override puts cfg in force for channel over whatever its scenario
// says (cfg checked by the caller).
func (s *Set) Override(channel string, cfg Config) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.over == nil {
		s.over = map[string]Config{}
	}
	s.over[channel] = cfg
	s.limiterLocked(channel, cfg)
}

// Drop removes channel's run-time limit: its scenario's, if any, is in
// force from its next call. Calls waiting on the dropped limit are
// admitted. It reports whether there was one.
func (s *Set) Drop(channel string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.over[channel]
	delete(s.over, channel)
	if l := s.lims[channel]; l != nil {
		l.Set(Config{}) // no bound: whoever waits goes in
		delete(s.lims, channel)
		s.busy.Store(int32(len(s.lims)))
	}
	return ok
}

// Overrides are the run-time limits, by channel.
func (s *Set) Overrides() map[string]Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.over)
}

// OverrideOf is channel's run-time limit, if any.
func (s *Set) OverrideOf(channel string) (Config, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.over[channel]
	return c, ok
}

// Stats are the counts of channel's limiter (zero when none is in force).
func (s *Set) Stats(channel string) Stats {
	s.mu.Lock()
	l := s.lims[channel]
	s.mu.Unlock()
	if l == nil {
		return Stats{}
	}
	return l.Stats()
}

// Channels are the channels with a limiter in force, sorted.
func (s *Set) Channels() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.lims))
}

// limiterLocked is channel's limiter with cfg in force (made, changed or,
// for a zero cfg, removed; s.mu held).
func (s *Set) limiterLocked(channel string, cfg Config) *Limiter {
	l := s.lims[channel]
	switch {
	case cfg.Zero():
		if l != nil {
			l.Set(cfg)
			delete(s.lims, channel)
		}
		l = nil
	case l == nil:
		if s.lims == nil {
			s.lims = map[string]*Limiter{}
		}
		l = New(cfg)
		s.lims[channel] = l
	case l.Config() != cfg:
		l.Set(cfg)
	}
	s.busy.Store(int32(len(s.lims)))
	return l
}

// Admit admits one call of channel under its limit: the run-time one, or
// else fromScenario, the governing scenario's for it (zero: none). A nil
// ticket and nil error mean no limit holds the channel.
func (s *Set) Admit(ctx context.Context, channel string, fromScenario Config) (*Ticket, error) {
	if s == nil || fromScenario.Zero() && s.busy.Load() == 0 {
		return nil, nil
	}
	s.mu.Lock()
	cfg, ok := s.over[channel]
	if !ok {
		cfg = fromScenario
	}
	l := s.limiterLocked(channel, cfg)
	s.mu.Unlock()
	if l == nil {
		return nil, nil
	}
	return l.Admit(ctx)
}
