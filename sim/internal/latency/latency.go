// Package latency owns latency profiles: how long the simulated service
// takes before it answers one endpoint's call (fixed, uniform, or
// log-normal given by median and p99, each with an optional cap and
// seed), drawing each call's delay and holding the call for it. Latency
// is simulator behaviour, not contract: the contract shows no timings.
//
// A delay is held on a timer beside the request's own goroutine, never
// in a store transaction, and before the endpoint's work: the profile is
// the service's processing time, so the answer (and any effect) comes
// after it.
package latency

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Z99 is the standard normal's 0.99 quantile: a log-normal's
// sigma = ln(p99/median)/Z99.
const Z99 = 2.3263478740408408

// MaxDelay bounds every figure and every draw: the fault delay's bound,
// so a held answer ends before the server's write timeout cuts it.
const MaxDelay = model.MaxDelay

// Uniform is a delay drawn evenly between Min and Max.
type Uniform struct {
	Min model.Duration `json:"min" yaml:"min"`
	Max model.Duration `json:"max" yaml:"max"`
}

// LogNormal is a log-normal delay given by its median and p99.
type LogNormal struct {
	Median model.Duration `json:"median" yaml:"median"`
	P99    model.Duration `json:"p99" yaml:"p99"`
}

// Profile is one endpoint's latency, for one channel or ("") every
// channel. Exactly one of Fixed, Uniform and LogNormal is set.
type Profile struct {
	// Endpoint is an operation name (as fault rules name them) or * for
	// every endpoint.
	Endpoint  string         `json:"endpoint" yaml:"endpoint"`
	Channel   string         `json:"channel,omitempty" yaml:"channel,omitempty"`
	Fixed     model.Duration `json:"fixed,omitempty" yaml:"fixed,omitempty"`
	Uniform   *Uniform       `json:"uniform,omitempty" yaml:"uniform,omitempty"`
	LogNormal *LogNormal     `json:"lognormal,omitempty" yaml:"lognormal,omitempty"`
	// Max caps every draw (0: only MaxDelay does).
	Max model.Duration `json:"max,omitempty" yaml:"max,omitempty"`
	// Seed seeds the profile's own random source, so a run's delays are
	// reproducible; 0 seeds it from the process's randomness.
	Seed int64 `json:"seed,omitempty" yaml:"seed,omitempty"`
	// Samples is how many measured calls the figures rest on (a profile
	// calibrate wrote; 0 for one written by hand).
	Samples int `json:"samples,omitempty" yaml:"samples,omitempty"`
}

// Kind names the profile's distribution: fixed, uniform or lognormal.
func (p Profile) Kind() string {
	switch {
	case p.Uniform != nil:
		return "uniform"
	case p.LogNormal != nil:
		return "lognormal"
	}
	return "fixed"
}

// Quantile is the profile's configured q quantile (0.5, 0.99), before
// the cap: what /metrics and the report set beside the measured ones.
func (p Profile) Quantile(q float64) time.Duration {
	var d time.Duration
	switch {
	case p.Uniform != nil:
		lo, hi := p.Uniform.Min.D(), p.Uniform.Max.D()
		d = lo + time.Duration(q*float64(hi-lo))
	case p.LogNormal != nil:
		if q == 0.99 {
			d = p.LogNormal.P99.D()
		} else {
			d = p.LogNormal.Median.D() // the other quantiles shown are the median
		}
	default:
		d = p.Fixed.D()
	}
	return min(d, p.bound())
}

// bound is the highest delay a draw may take.
func (p Profile) bound() time.Duration {
	if m := p.Max.D(); m > 0 && m < MaxDelay {
		return m
	}
	return MaxDelay
}

// CheckError is what Check refuses: Field is the profile's field at
// fault as a JSON pointer relative to the profile ("/lognormal/p99").
type CheckError struct{ Field, Msg string }

func (e *CheckError) Error() string { return e.Msg }

// Check reports what is wrong with p (a *CheckError), or nil. The control
// API and scenario files both check here, in the same words. notAnOp
// words an unknown endpoint (fault.NotAnOperation: its did-you-mean is
// the fault rules'); passed in so that this package stays a leaf beside
// fault rather than below it.
func Check(p Profile, notAnOp func(name, orElse string) string) error {
	bad := func(field, format string, a ...any) error {
		return &CheckError{Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	over := func(field string, d model.Duration) error {
		if d.D() > MaxDelay {
			return bad(field, "%v is over the bound of %v: a longer delay would outlast the write timeout", d.D(), MaxDelay)
		}
		if d.D() < 0 {
			return bad(field, "%v is negative", d.D())
		}
		return nil
	}
	if _, ok := contract.ByName(p.Endpoint); !ok && p.Endpoint != "*" {
		return bad("/endpoint", "%s", notAnOp(p.Endpoint, "or *"))
	}
	n := 0
	if p.Fixed != 0 {
		n++
	}
	if p.Uniform != nil {
		n++
	}
	if p.LogNormal != nil {
		n++
	}
	if n != 1 {
		return bad("", "a latency profile has exactly one of fixed, uniform and lognormal (it has %d)", n)
	}
	switch {
	case p.Uniform != nil:
		if err := over("/uniform/min", p.Uniform.Min); err != nil {
			return err
		}
		if err := over("/uniform/max", p.Uniform.Max); err != nil {
			return err
		}
		if p.Uniform.Max < p.Uniform.Min || p.Uniform.Max <= 0 {
			return bad("/uniform/max", "uniform max %v is not above min %v", p.Uniform.Max.D(), p.Uniform.Min.D())
		}
	case p.LogNormal != nil:
		if p.LogNormal.Median.D() <= 0 {
			return bad("/lognormal/median", "a log-normal profile needs a positive median")
		}
		if err := over("/lognormal/p99", p.LogNormal.P99); err != nil {
			return err
		}
		if p.LogNormal.P99 < p.LogNormal.Median {
			return bad("/lognormal/p99", "p99 %v is below the median %v", p.LogNormal.P99.D(), p.LogNormal.Median.D())
		}
	default:
		if err := over("/fixed", p.Fixed); err != nil {
			return err
		}
	}
	if err := over("/max", p.Max); err != nil {
		return err
	}
	if p.Samples < 0 {
		return bad("/samples", "samples %d is negative", p.Samples)
	}
	return nil
}

// Source draws one profile's delays from its own random source, guarded,
// so a seeded profile gives the same sequence whatever else is drawn.
type Source struct {
	Profile
	mu  sync.Mutex
	rng *rand.Rand
}

// NewSource arms p (already checked).
func NewSource(p Profile) *Source {
	seed := uint64(p.Seed)
	if p.Seed == 0 {
		seed = rand.Uint64()
	}
	return &Source{Profile: p, rng: rand.New(rand.NewPCG(seed, 0x1a7e))}
}

// Draw returns the next delay: never negative, never above the cap.
func (s *Source) Draw() time.Duration {
	if s == nil {
		return 0
	}
	p := s.Profile
	var d time.Duration
	switch {
	case p.Uniform != nil:
		lo, hi := p.Uniform.Min.D(), p.Uniform.Max.D()
		s.mu.Lock()
		d = lo + time.Duration(s.rng.Int64N(int64(hi-lo)+1))
		s.mu.Unlock()
	case p.LogNormal != nil:
		med := float64(p.LogNormal.Median.D())
		sigma := math.Log(float64(p.LogNormal.P99.D())/med) / Z99
		s.mu.Lock()
		z := s.rng.NormFloat64()
		s.mu.Unlock()
		d = time.Duration(math.Min(med*math.Exp(sigma*z), float64(MaxDelay)))
	default:
		d = p.Fixed.D()
	}
	return max(0, min(d, p.bound()))
}

// Set is one owner's profiles (a scenario's, or the run-time ones), found
// by endpoint and channel.
type Set struct {
	mu   sync.RWMutex
	byEP map[key]*Source
	// n is len(byEP), read without the lock: with no profile, the common
	// case, a call pays one atomic load and no shared lock word.
	n atomic.Int32
}

type key struct{ endpoint, channel string }

// NewSet arms ps (already checked); a later profile for the same
// endpoint and channel replaces an earlier one.
func NewSet(ps []Profile) *Set {
	s := &Set{byEP: map[key]*Source{}}
	for _, p := range ps {
		s.byEP[key{p.Endpoint, p.Channel}] = NewSource(p)
	}
	s.n.Store(int32(len(s.byEP)))
	return s
}

// Put arms p, replacing the profile of its endpoint and channel.
func (s *Set) Put(p Profile) {
	src := NewSource(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byEP == nil {
		s.byEP = map[key]*Source{}
	}
	s.byEP[key{p.Endpoint, p.Channel}] = src
	s.n.Store(int32(len(s.byEP)))
}

// Remove disarms the profiles of endpoint ("" every one) and channel
// (every channel's too when all is set); it returns those removed.
func (s *Set) Remove(endpoint, channel string, all bool) []Profile {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Profile
	for k, src := range s.byEP {
		if (endpoint == "" || k.endpoint == endpoint) && (all || k.channel == channel) {
			out = append(out, src.Profile)
			delete(s.byEP, k)
		}
	}
	s.n.Store(int32(len(s.byEP)))
	sortProfiles(out)
	return out
}

// List is every profile, by endpoint then channel.
func (s *Set) List() []Profile {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Profile, 0, len(s.byEP))
	for _, src := range s.byEP {
		out = append(out, src.Profile)
	}
	sortProfiles(out)
	return out
}

func sortProfiles(ps []Profile) {
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].Endpoint != ps[j].Endpoint {
			return ps[i].Endpoint < ps[j].Endpoint
		}
		return ps[i].Channel < ps[j].Channel
	})
}

// Find is the profile governing endpoint's calls on channel: the
// channel's own before every channel's, the endpoint's own before *'s.
func (s *Set) Find(endpoint, channel string) *Source {
	if s == nil || s.n.Load() == 0 {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, k := range [...]key{{endpoint, channel}, {"*", channel}, {endpoint, ""}, {"*", ""}} {
		if src, ok := s.byEP[k]; ok {
			return src
		}
	}
	return nil
}

// First is the profile governing a call: the run-time set's (may be nil)
// before the scenario's, the one order every endpoint uses.
func First(runtime, scenario *Set, endpoint, channel string) *Source {
	if src := runtime.Find(endpoint, channel); src != nil {
		return src
	}
	return scenario.Find(endpoint, channel)
}
