// Package controlplane owns the simulator's run-time configuration: the
// scenarios loaded and activated, channels registered at run time, fault
// rules and the simulated clock. For each it applies, saves and restores,
// in one order with one failure rule:
//
//	check the change, save it (one store transaction), then put it in force.
//
// A change that fails its check or its save is not in force, so memory
// and disk never disagree. At start-up Open restores every saved record;
// records that no longer load are logged and skipped, so a restart never
// fails on them. The control API (api/control) is an HTTP layer over it.
package controlplane

import (
	"cmp"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"sync"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/latency"
	"github.com/rewardsim/rewardsim/sim/internal/limit"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/state"
)

// Record kinds in the store's config bucket.
const (
	kindChannel    = "channel"
	kindFault      = "fault"
	kindScenario   = "scenario"
	kindActivation = "activation"
	kindClock      = "clock"
)

// Store is where the plane keeps its records (and the state it resets).
type Store interface {
	GetConfig(kind, key string, v any) error
	ConfigList(kind string) ([]json.RawMessage, error)
	WriteConfig(ws ...state.ConfigWrite) error
	ReplaceConfig(kind, key string, v any, newer func(old []byte) bool) (bool, error)
	ResetChannel(channel string, ws ...state.ConfigWrite) error
}

// Files reads scenarios for the plane: the composition root's, the only
// reader of files.
type Files interface {
	// Parse compiles uploaded YAML; name is how errors name it; base
	// finds a loaded scenario's YAML for an overlay's extends:.
	Parse(name string, data []byte, base func(name string) ([]byte, bool)) (*scenario.Scenario, error)
	// Load reads a scenario file or folder.
	Load(path string) (*scenario.Scenario, error)
	// Stamp changes whenever the file (or the folder's files) change.
	Stamp(path string) string
}

// Options configure Open. Every field but Clock and Watch is required.
type Options struct {
	Store Store
	Files Files
	// Scenario is the one in force at start, before the saved records.
	Scenario *scenario.Scenario
	// Watch is a scenario path to watch for hot reload ("" for none).
	Watch string
	// Clock, when set (tests), is used as is and not saved; else the
	// saved simulated clock is restored.
	Clock clock.Clock
	Rand  io.Reader
	Log   *slog.Logger
	// SharedBox makes every channel made like another isolated
	// (ChannelSpec.Isolated).
	SharedBox bool
	// Secrets hears every channel secKey the plane puts in force, so the
	// journal masks it wherever it appears (nil: none told).
	Secrets SecKeyTeller
}

// SecKeyTeller is told the secKeys of channels (the journal's memory of
// what to mask).
type SecKeyTeller interface{ LearnSecKey(values ...string) }

// Plane is the control plane. Its changes run one at a time.
type Plane struct {
	mu        sync.Mutex // serialises changes: check, save, apply
	store     Store
	files     Files
	scenarios *scenario.Registry
	faults    *fault.Set
	limits    *limit.Set // the channels' capacity limits (limits.go)
	latency   *latency.Set
	clock     clock.Clock     // the global clock
	clocks    *clock.Channels // it, with the channels' own clocks
	rand      io.Reader
	log       *slog.Logger
	sharedBox bool
	secrets   SecKeyTeller
	tokens    channelTokens // the channels' own control tokens (chantoken.go)

	watchMu sync.Mutex
	watched map[string]string // path -> Stamp of its files
}

// refuse is a change the plane will not make: invalid (the change itself
// is wrong), not found (it names nothing that exists) or conflict (it
// clashes with what is in force). Any other error of a change is the
// store's (the change is then not in force either).
func refuse(why refusal.Kind, format string, a ...any) error {
	return refusal.New(why, format, a...)
}

// Open restores the saved configuration, in this order: the clock;
// run-time channels that name no scenario; scenarios; activations;
// channels that name a scenario or are made like another; switch
// overrides; fault rules in the order they were added. Channels come back before scenarios because a channel may have
// been registered first and then named by an uploaded scenario of its
// own (which the clash check would refuse the other way round).
func Open(o Options) (*Plane, error) {
	p := &Plane{
		store: o.Store, files: o.Files, scenarios: scenario.NewRegistry(o.Scenario),
		faults: &fault.Set{}, limits: &limit.Set{}, latency: latency.NewSet(nil), clock: o.Clock, rand: o.Rand, log: o.Log, sharedBox: o.SharedBox,
		secrets: o.Secrets, watched: map[string]string{},
	}
	if p.clock == nil {
		var err error
		if p.clock, err = p.restoreClock(); err != nil {
			return nil, err
		}
	}
	p.learnSecKeys(o.Scenario)
	p.clocks = clock.NewChannels(p.clock)
	p.restoreChannelClocks()
	if o.Watch != "" {
		p.watch(o.Watch)
	}
	_ = p.scenarios.Change(func(d *scenario.Draft) error {
		var named []ChannelSpec
		restore(p, kindChannel, func(spec ChannelSpec) error {
			if spec.Scenario != "" || spec.Like != "" {
				named = append(named, spec)
				return nil
			}
			return registerIn(d, spec)
		})
		restore(p, kindScenario, func(rec storedScenario) error {
			sc, err := p.compile(rec, d.ByName)
			if err == nil {
				d.Load(sc)
			}
			return err
		})
		restore(p, kindActivation, func(a activation) error { return d.Activate(a.Scenario, a.Channel) })
		for _, spec := range named {
			if err := registerIn(d, spec); err != nil {
				p.log.Warn("skipping a stored control record", "kind", kindChannel, "channel", spec.Name, "err", err)
			}
		}
		restore(p, kindSwitch, func(r switchRecord) error { return restoreSwitch(d, r) })
		return nil
	})
	var rules []fault.Status
	restore(p, kindFault, func(st fault.Status) error {
		rules = append(rules, st)
		return nil
	})
	slices.SortStableFunc(rules, func(a, b fault.Status) int { return cmp.Compare(a.Seq, b.Seq) })
	for _, st := range rules {
		p.faults.Restore(st)
	}
	p.faults.OnFire = p.saveCounters
	p.restoreLimits()
	restore(p, kindLatency, p.restoreLatency)
	p.restoreChannelTokens()
	return p, nil
}

// restore applies every stored record of kind.
func restore[T any](p *Plane, kind string, apply func(T) error) {
	raws, err := p.store.ConfigList(kind)
	if err != nil {
		p.log.Error("restoring control records", "kind", kind, "err", err)
		return
	}
	for _, raw := range raws {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			p.log.Warn("skipping a stored control record", "kind", kind, "err", err)
			continue
		}
		if err := apply(v); err != nil {
			p.log.Warn("skipping a stored control record", "kind", kind, "record", string(raw), "err", err)
		}
	}
}

type stateWrite = state.ConfigWrite

func put(kind, key string, v any) stateWrite {
	return state.ConfigWrite{Kind: kind, Key: key, Value: v}
}

func del(kind, key string) stateWrite {
	return state.ConfigWrite{Kind: kind, Key: key, Delete: true}
}

// Scenarios is the registry of scenarios and channels in force: the
// hosts read it; only the plane changes it.
func (p *Plane) Scenarios() *scenario.Registry { return p.scenarios }

// Faults are the run-time fault rules, consulted before a scenario's.
func (p *Plane) Faults() *fault.Set { return p.faults }

// Clock is the simulated clock: the global one, with the channels' own
// (clock.For finds a channel's).
func (p *Plane) Clock() clock.PerChannel { return p.clocks }

// knownChannel refuses a channel name nothing defines.
func (p *Plane) knownChannel(name string) error {
	if _, _, ok := p.scenarios.ByChannelName(name); !ok {
		return refuse(refusal.NotFound, "no channel named %q", name)
	}
	return nil
}

// Reset wipes one channel's state (or everyone's, for ""); the
// configuration stays.
func (p *Plane) Reset(channel string) error {
	if channel != "" {
		if err := p.knownChannel(channel); err != nil {
			return err
		}
	}
	return p.store.ResetChannel(channel)
}
