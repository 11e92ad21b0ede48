package scenario

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Registry is the run-time side of scenarios: the loaded ones, the one
// active by default, those activated per channel, and the channels
// registered at run time. All of it is one immutable snapshot behind one
// pointer: requests read it without locks, and a change is built on a
// copy and published whole, so a reader never sees half of one.
// (Parsing and compiling files is parse.go's; this file only holds what
// is in force.)
type Registry struct {
	mu  sync.Mutex // serialises changes of this registry; readers never take it
	cur atomic.Pointer[snapshot]
}

type snapshot struct {
	active     *Scenario
	loaded     map[string]*Scenario // by name; always holds active
	perChannel map[string]string    // channel name -> scenario name
	registered []Registered
	// switches are the switch overrides set at run time: channel name
	// ("" every channel) -> switch Name -> value.
	switches map[string]map[string]string
	// cache keeps each channel's scenario under its overrides (a
	// snapshot never changes, so neither does what it derives).
	cache sync.Map // governKey -> *Scenario
}

type governKey struct {
	sc      *Scenario
	channel string
}

// Registered is a channel registered at run time. Scenario, if set, is the
// scenario that governs it (else the one active for it).
type Registered struct {
	model.Channel
	Scenario string
	// Own, when set, is the channel's own compiled scenario (a channel
	// made like another, Scenario.Like); it governs the channel and is
	// not listed among the loaded ones.
	Own *Scenario
}

// NewRegistry returns a registry serving s.
func NewRegistry(s *Scenario) *Registry {
	r := &Registry{}
	r.cur.Store(&snapshot{active: s, loaded: map[string]*Scenario{s.Name: s}, perChannel: map[string]string{}, switches: map[string]map[string]string{}})
	return r
}

// Draft is a copy of the registry being changed (see Change).
type Draft struct{ s *snapshot }

// Change runs f on a copy of the registry and publishes the copy whole
// unless f fails. Changes of one registry run one at a time, so f is also
// where the owner saves what it changed: a change is saved and published
// in one order, and a failed save publishes nothing.
func (r *Registry) Change(f func(*Draft) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.cur.Load()
	d := &Draft{&snapshot{
		active:     old.active,
		loaded:     maps.Clone(old.loaded),
		perChannel: maps.Clone(old.perChannel),
		registered: slices.Clone(old.registered),
		switches:   maps.Clone(old.switches),
	}}
	if err := f(d); err != nil {
		return err
	}
	r.cur.Store(d.s)
	return nil
}

// ByName finds a scenario loaded in the draft.
func (d *Draft) ByName(name string) (*Scenario, bool) {
	s, ok := d.s.loaded[name]
	return s, ok
}

// Load adds s to the loaded scenarios, replacing one of the same name
// (hot reload); if that one was active it stays active, now as s.
func (d *Draft) Load(s *Scenario) {
	d.s.loaded[s.Name] = s
	if d.s.active.Name == s.Name {
		d.s.active = s
	}
}

// Activate puts a loaded scenario in force for one channel, or for every
// channel without its own when channel is "". An empty name with a
// channel clears that channel's own activation.
func (d *Draft) Activate(name, channel string) error {
	if name == "" && channel != "" {
		delete(d.s.perChannel, channel)
		return nil
	}
	s, ok := d.s.loaded[name]
	if !ok {
		return fmt.Errorf("no scenario named %q is loaded", name)
	}
	if channel == "" {
		d.s.active = s
		return nil
	}
	d.s.perChannel[channel] = name
	return nil
}

// Like compiles a copy, for ch, of the channel named src as the draft
// governs it (Scenario.Like).
func (d *Draft) Like(src string, ch model.Channel) (*Scenario, Copied, error) {
	if _, _, ok := d.s.lookup(func(c model.Channel) bool { return c.Name == src }); !ok {
		return nil, Copied{}, fmt.Errorf("no channel named %q", src)
	}
	return d.s.activeFor(src).Like(src, ch)
}

// Register adds (or replaces, by name) a channel at run time. Its name and
// CHANNELID must not clash with a scenario's channel or another
// registered channel. A refused edit leaves the draft unchanged.
func (d *Draft) Register(c Registered) error {
	sn := d.s
	if c.Scenario != "" {
		if _, ok := sn.loaded[c.Scenario]; !ok {
			return fmt.Errorf("no scenario named %q is loaded", c.Scenario)
		}
	}
	for _, s := range sn.sorted() {
		for _, x := range s.Channels {
			if x.Name == c.Name || x.ChannelID == c.ChannelID {
				return fmt.Errorf("channel %s / %s clashes with channel %s / %s of scenario %s", c.Name, c.ChannelID, x.Name, x.ChannelID, s.Name)
			}
		}
	}
	out := make([]Registered, 0, len(sn.registered)+1) // a refused change leaves the draft as it was
	for _, x := range sn.registered {
		if x.Name == c.Name {
			continue
		}
		if x.ChannelID == c.ChannelID {
			return fmt.Errorf("CHANNELID %s is already registered by channel %s", c.ChannelID, x.Name)
		}
		out = append(out, x)
	}
	sn.registered = append(out, c)
	return nil
}

// Unregister removes a channel registered at run time; false if there was none.
func (d *Draft) Unregister(name string) bool {
	n := len(d.s.registered)
	d.s.registered = slices.DeleteFunc(d.s.registered, func(x Registered) bool { return x.Name == name })
	return len(d.s.registered) < n
}

// SetSwitch overrides switch name (a SwitchTable Name) with value (as
// Checked) for channel ("" every channel); value "" drops the override.
// It is refused when the channel's scenario cannot take it (a listing
// default limit over the maximum).
func (d *Draft) SetSwitch(channel, name, value string) error {
	if d.s.switches == nil {
		d.s.switches = map[string]map[string]string{}
	}
	over := maps.Clone(d.s.switches[channel])
	if over == nil {
		over = map[string]string{}
	}
	if value == "" {
		delete(over, name)
	} else {
		over[name] = value
	}
	d.s.switches[channel] = over
	if len(over) == 0 {
		delete(d.s.switches, channel)
	}
	if value == "" {
		return nil
	}
	_, err := d.s.withSwitches(d.s.activeFor(channel), channel)
	return err
}

// Reading is a consistent view: every method below reads one snapshot.

// SwitchOverrides is the switch overrides set at run time: channel name
// ("" every channel) -> switch Name -> value.
func (r *Registry) SwitchOverrides() map[string]map[string]string {
	out := map[string]map[string]string{}
	for ch, over := range r.cur.Load().switches {
		out[ch] = maps.Clone(over)
	}
	return out
}

// Underlying is the scenario governing channel before its switch
// overrides: what the scenario's file says.
func (r *Registry) Underlying(channel string) *Scenario { return r.cur.Load().activeFor(channel) }

// Active is the scenario in force by default.
func (r *Registry) Active() *Scenario { return r.cur.Load().active }

// Scenarios lists the loaded scenarios by name.
func (r *Registry) Scenarios() []*Scenario { return r.cur.Load().sorted() }

// ByName finds a loaded scenario.
func (r *Registry) ByName(name string) (*Scenario, bool) {
	s, ok := r.cur.Load().loaded[name]
	return s, ok
}

// PerChannel returns the channels that have their own scenario.
func (r *Registry) PerChannel() map[string]string { return maps.Clone(r.cur.Load().perChannel) }

// ActiveFor is the scenario that governs the channel named name, its
// switch overrides set.
func (r *Registry) ActiveFor(name string) *Scenario { return r.cur.Load().governing(name) }

// Registered lists the channels registered at run time.
func (r *Registry) Registered() []Registered { return slices.Clone(r.cur.Load().registered) }

// ByChannelID finds the channel with that CHANNELID and the scenario that
// governs it, its switch overrides set.
func (r *Registry) ByChannelID(id string) (model.Channel, *Scenario, bool) {
	return r.cur.Load().governed(func(c model.Channel) bool { return c.ChannelID == id })
}

// ByChannelName finds the channel with that bName / channelName and the
// scenario that governs it. Bearer endpoints use it with a token's channel.
func (r *Registry) ByChannelName(name string) (model.Channel, *Scenario, bool) {
	return r.cur.Load().governed(func(c model.Channel) bool { return c.Name == name })
}

// governing is activeFor(name) with the switch overrides of every
// channel and of name set. An override the scenario cannot take (set
// while another scenario governed) is left out.
func (sn *snapshot) governing(name string) *Scenario {
	sc := sn.activeFor(name)
	if len(sn.switches) == 0 {
		return sc
	}
	out, err := sn.withSwitches(sc, name)
	if err != nil {
		return sc
	}
	return out
}

// withSwitches is sc with the overrides of every channel, then of
// channel's own, set; cached per snapshot.
func (sn *snapshot) withSwitches(sc *Scenario, channel string) (*Scenario, error) {
	all, own := sn.switches[""], sn.switches[channel]
	if len(all) == 0 && len(own) == 0 {
		return sc, nil
	}
	key := governKey{sc, channel}
	if got, ok := sn.cache.Load(key); ok {
		return got.(*Scenario), nil
	}
	over := maps.Clone(all)
	if over == nil {
		over = map[string]string{}
	}
	maps.Copy(over, own)
	out, err := sc.WithSwitches(over)
	if err != nil {
		return nil, err
	}
	sn.cache.Store(key, out)
	return out, nil
}

// governed is lookup with the found channel's switch overrides set (an
// unknown channel gets those of every channel).
func (sn *snapshot) governed(match func(model.Channel) bool) (model.Channel, *Scenario, bool) {
	c, sc, ok := sn.lookup(match)
	if len(sn.switches) == 0 {
		return c, sc, ok
	}
	if out, err := sn.withSwitches(sc, c.Name); err == nil {
		sc = out
	}
	return c, sc, ok
}

func (sn *snapshot) sorted() []*Scenario {
	out := slices.Collect(maps.Values(sn.loaded))
	slices.SortFunc(out, func(a, b *Scenario) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

func (sn *snapshot) activeFor(name string) *Scenario {
	for _, c := range sn.registered {
		if c.Name == name && c.Own != nil {
			return c.Own
		}
		if c.Name == name && c.Scenario != "" {
			if s, ok := sn.loaded[c.Scenario]; ok {
				return s
			}
		}
	}
	if n, ok := sn.perChannel[name]; ok {
		if s, ok := sn.loaded[n]; ok {
			return s
		}
	}
	return sn.active
}

// lookup finds a channel by a predicate: registered channels first; then
// a channel activated onto a scenario of its own, with that scenario's
// entry for it (credentials included); then the active scenario's
// channels. A scenario active only for one channel lends nothing to its
// other channels.
func (sn *snapshot) lookup(match func(model.Channel) bool) (model.Channel, *Scenario, bool) {
	for _, c := range sn.registered {
		if match(c.Channel) {
			return c.Channel, sn.activeFor(c.Name), true
		}
	}
	for ch, n := range sn.perChannel {
		if c, ok := channelIn(sn.loaded[n], ch); ok && match(c) {
			return c, sn.loaded[n], true
		}
	}
	for _, c := range sn.active.Channels {
		if !match(c) {
			continue
		}
		if n, ok := sn.perChannel[c.Name]; ok {
			if _, own := channelIn(sn.loaded[n], c.Name); own {
				continue // its own scenario's entry governs it
			}
		}
		return c, sn.activeFor(c.Name), true
	}
	return model.Channel{}, sn.active, false
}

// channelIn finds the channel named name in sc (nil-safe).
func channelIn(sc *Scenario, name string) (model.Channel, bool) {
	if sc == nil {
		return model.Channel{}, false
	}
	for _, c := range sc.Channels {
		if c.Name == name {
			return c, true
		}
	}
	return model.Channel{}, false
}
