package controlplane

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

// ActivationAll is the activation record key of the default scenario.
const activationAll = "*"

// activation is the stored record of one activation; Channel "" is the
// default scenario.
type activation struct {
	Channel  string `json:"channel"`
	Scenario string `json:"scenario"`
}

// storedScenario is a scenario the control API loaded, as the store keeps
// it: uploaded YAML is kept whole; a file is kept by path and re-read.
type storedScenario struct {
	Name string `json:"name"`
	Path string `json:"path,omitempty"`
	YAML string `json:"yaml,omitempty"`
}

// Source is a scenario to load: a file or folder on the simulator's disk
// (Path, then watched for changes), or uploaded YAML named Name.
type Source struct {
	Path string
	Name string
	YAML []byte
}

// loadedYAML finds a loaded scenario's YAML with byName (an overlay's base).
func loadedYAML(byName func(string) (*scenario.Scenario, bool)) func(string) ([]byte, bool) {
	return func(name string) ([]byte, bool) {
		if s, ok := byName(name); ok && len(s.YAML) > 0 {
			return s.YAML, true
		}
		return nil, false
	}
}

func (p *Plane) compile(rec storedScenario, byName func(string) (*scenario.Scenario, bool)) (*scenario.Scenario, error) {
	if rec.Path != "" {
		sc, err := p.files.Load(rec.Path)
		if err == nil {
			p.watch(rec.Path)
			p.learnSecKeys(sc)
		}
		return sc, err
	}
	sc, err := p.files.Parse(rec.Name+".yaml", []byte(rec.YAML), loadedYAML(byName))
	if err == nil {
		p.learnSecKeys(sc)
	}
	return sc, err
}

// learnSecKeys has the journal mask the scenario's channels' secKeys
// wherever they appear (issue 23); every scenario the plane puts in force
// passes here or through Open, so the scenario package itself stays
// unaware of the journal.
func (p *Plane) learnSecKeys(sc *scenario.Scenario) {
	if sc == nil || p.secrets == nil {
		return
	}
	for _, c := range sc.Channels {
		p.secrets.LearnSecKey(c.SecKey)
	}
}

// BadScenario is a scenario that does not compile; Err is the compiler's
// (scenario.Errors when it locates its problems).
type BadScenario struct{ Err error }

func (b *BadScenario) Error() string { return b.Err.Error() }
func (b *BadScenario) Unwrap() error { return b.Err }

// LoadScenario compiles src and loads it, replacing a loaded scenario of
// the same name, and when activate is set activates it for channel (""
// = every channel without its own), all as one change. A scenario that
// does not compile is a *BadScenario.
func (p *Plane) LoadScenario(src Source, activate bool, channel string) (*scenario.Scenario, error) {
	var (
		sc  *scenario.Scenario
		err error
	)
	if src.Path != "" {
		sc, err = p.files.Load(src.Path)
	} else {
		sc, err = p.files.Parse(src.Name, src.YAML, loadedYAML(p.scenarios.ByName))
	}
	if err != nil {
		return nil, &BadScenario{err}
	}
	rec := storedScenario{Name: sc.Name, Path: src.Path}
	if src.Path == "" {
		rec.YAML = string(src.YAML)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.roomFor(rec); err != nil {
		return nil, err
	}
	err = p.scenarios.Change(func(d *scenario.Draft) error {
		d.Load(sc)
		writes := []stateWrite{put(kindScenario, sc.Name, rec)}
		if activate {
			w, err := p.activateIn(d, sc.Name, channel)
			if err != nil {
				return err
			}
			writes = append(writes, w)
		}
		return p.store.WriteConfig(writes...)
	})
	if err != nil {
		return nil, err
	}
	if src.Path != "" {
		p.watch(src.Path)
	}
	return sc, nil
}

// ActivateScenario puts the loaded scenario name in force for channel (""
// = every channel without its own).
func (p *Plane) ActivateScenario(name, channel string) error {
	if _, ok := p.scenarios.ByName(name); !ok {
		names := []string{}
		for _, s := range p.scenarios.Scenarios() {
			names = append(names, s.Name)
		}
		slices.Sort(names)
		return refuse(refusal.NotFound, "no scenario named %q is loaded (loaded: %s)", name, strings.Join(names, ", "))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.scenarios.Change(func(d *scenario.Draft) error {
		w, err := p.activateIn(d, name, channel)
		if err != nil {
			return err
		}
		return p.store.WriteConfig(w)
	})
}

// activateIn activates name for channel in d and returns the record to
// save. The channel must exist: registered, in the active scenario, or
// listed by the scenario being activated.
func (p *Plane) activateIn(d *scenario.Draft, name, channel string) (stateWrite, error) {
	if channel != "" {
		_, _, known := p.scenarios.ByChannelName(channel)
		if sc, ok := d.ByName(name); !known && !(ok && sc.HasChannel(channel)) {
			return stateWrite{}, refuse(refusal.NotFound, "no channel named %q (not registered, not in the active scenario, not listed by scenario %s)", channel, name)
		}
	}
	if err := d.Activate(name, channel); err != nil {
		return stateWrite{}, refuse(refusal.NotFound, "%v", err)
	}
	key := channel
	if key == "" {
		key = activationAll
	}
	return put(kindActivation, key, activation{Channel: channel, Scenario: name}), nil
}

func (p *Plane) watch(path string) {
	p.watchMu.Lock()
	defer p.watchMu.Unlock()
	if _, ok := p.watched[path]; !ok {
		p.watched[path] = p.files.Stamp(path)
	}
}

// Watch reloads a watched scenario whose files changed (hot reload),
// checking every period until ctx ends. Polling the modification time
// (stdlib only) rather than fsnotify: a scenario folder is a handful of
// files, a one-second poll is cheap, and it also works on network and
// container-mounted folders where inotify events do not arrive. A file
// that no longer loads is logged and the previous version stays in force.
func (p *Plane) Watch(ctx context.Context, every time.Duration) {
	clock.Every(ctx, every, p.reloadChanged)
}

// reloadChanged reloads each watched scenario whose stamp changed.
func (p *Plane) reloadChanged() {
	p.watchMu.Lock()
	var changed []string
	for path, old := range p.watched {
		if now := p.files.Stamp(path); now != old {
			p.watched[path] = now
			changed = append(changed, path)
		}
	}
	p.watchMu.Unlock()
	for _, path := range changed {
		sc, err := p.files.Load(path)
		if err != nil {
			p.log.Error("scenario hot reload refused; the previous version stays", "path", path, "err", err)
			continue
		}
		p.learnSecKeys(sc)
		// Nothing to save: the record names the path, which is re-read.
		p.mu.Lock()
		_ = p.scenarios.Change(func(d *scenario.Draft) error { d.Load(sc); return nil })
		p.mu.Unlock()
		p.log.Info("scenario reloaded", "path", path, "name", sc.Name)
	}
}

// Bounds on the scenarios the control API stores: every one is compiled
// again at each start, so without them uploads made restarts slower and
// slower (issue 23: 3.6 s after 1,270 uploads).
const (
	MaxScenarios     = 200
	MaxScenarioBytes = 8 << 20
)

// roomFor refuses a new scenario beyond MaxScenarios stored, or uploaded
// YAML beyond MaxScenarioBytes in all; replacing one of the same name
// counts only the difference.
func (p *Plane) roomFor(rec storedScenario) error {
	raws, err := p.store.ConfigList(kindScenario)
	if err != nil {
		return err
	}
	n, size, replaces := 0, len(rec.YAML), false
	for _, raw := range raws {
		var old storedScenario
		if json.Unmarshal(raw, &old) != nil {
			continue
		}
		if old.Name == rec.Name {
			replaces = true
			continue
		}
		n++
		size += len(old.YAML)
	}
	if !replaces && n+1 > MaxScenarios {
		return refuse(refusal.Conflict, "%d scenarios are stored, the maximum: scenario %s is refused (a scenario of an existing name replaces it)", n, rec.Name)
	}
	if size > MaxScenarioBytes {
		return refuse(refusal.Conflict, "stored scenarios would hold %d bytes of YAML, over the %d maximum: scenario %s is refused (a scenario of an existing name replaces it)", size, MaxScenarioBytes, rec.Name)
	}
	return nil
}
