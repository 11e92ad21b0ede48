package scenario

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// The registry's control-plane side: several loaded scenarios, one active
// by default and others activated per channel, and channels registered
// at run time. Writers copy the snapshot and swap it whole, so requests
// read without locks and never see half a change.

type snapshot struct {
	loaded     map[string]*Scenario // by name
	perChannel map[string]string    // channel name -> scenario name
	registered []Registered
}

// Registered is a channel registered at run time. Scenario, if set, is the
// scenario that governs it (else the one active for it).
type Registered struct {
	model.Channel
	Scenario string
}

var regMu sync.Mutex // serialises writers of every Registry (they are few)

func (r *Registry) snap() *snapshot {
	if s := r.multi.Load(); s != nil {
		return s
	}
	return &snapshot{}
}

// update runs f on a copy of the snapshot and publishes it unless f fails.
func (r *Registry) update(f func(s *snapshot) error) error {
	regMu.Lock()
	defer regMu.Unlock()
	old := r.snap()
	s := &snapshot{
		loaded:     maps.Clone(old.loaded),
		perChannel: maps.Clone(old.perChannel),
		registered: slices.Clone(old.registered),
	}
	if s.loaded == nil {
		s.loaded = map[string]*Scenario{}
	}
	if s.perChannel == nil {
		s.perChannel = map[string]string{}
	}
	if a := r.Active(); a != nil {
		if _, ok := s.loaded[a.Name]; !ok {
			s.loaded[a.Name] = a
		}
	}
	if err := f(s); err != nil {
		return err
	}
	r.multi.Store(s)
	return nil
}

// Load adds s to the loaded scenarios, replacing one of the same name
// (hot reload); if that one was active it stays active, now as s.
func (r *Registry) Load(s *Scenario) {
	_ = r.update(func(sn *snapshot) error {
		sn.loaded[s.Name] = s
		if a := r.Active(); a != nil && a.Name == s.Name {
			r.active.Store(s)
		}
		return nil
	})
}

// Scenarios lists the loaded scenarios by name.
func (r *Registry) Scenarios() []*Scenario {
	_ = r.update(func(*snapshot) error { return nil }) // includes the initial active one
	sn := r.snap()
	out := slices.Collect(maps.Values(sn.loaded))
	slices.SortFunc(out, func(a, b *Scenario) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	return out
}

// ByName finds a loaded scenario.
func (r *Registry) ByName(name string) (*Scenario, bool) {
	if a := r.Active(); a != nil && a.Name == name {
		return a, true
	}
	s, ok := r.snap().loaded[name]
	return s, ok
}

// ActivateName puts a loaded scenario in force for one channel, or for
// every channel without its own when channel is "". An empty name with a
// channel clears that channel's own activation.
func (r *Registry) ActivateName(name, channel string) error {
	return r.update(func(sn *snapshot) error {
		if name == "" && channel != "" {
			delete(sn.perChannel, channel)
			return nil
		}
		s, ok := sn.loaded[name]
		if !ok {
			return fmt.Errorf("no scenario named %q is loaded", name)
		}
		if channel == "" {
			r.active.Store(s)
			return nil
		}
		sn.perChannel[channel] = name
		return nil
	})
}

// PerChannel returns the channels that have their own scenario.
func (r *Registry) PerChannel() map[string]string { return maps.Clone(r.snap().perChannel) }

// ActiveFor is the scenario that governs the channel named name.
func (r *Registry) ActiveFor(name string) *Scenario {
	sn := r.snap()
	for _, c := range sn.registered {
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
	return r.Active()
}

// Register adds (or replaces, by name) a channel at run time. Its name and
// CHANNELID must not clash with a scenario's channel or another
// registered channel.
func (r *Registry) Register(c Registered) error {
	return r.update(func(sn *snapshot) error {
		if c.Scenario != "" {
			if _, ok := sn.loaded[c.Scenario]; !ok {
				return fmt.Errorf("no scenario named %q is loaded", c.Scenario)
			}
		}
		for _, s := range sn.loaded {
			for _, x := range s.Channels {
				if x.Name == c.Name || x.ChannelID == c.ChannelID {
					return fmt.Errorf("channel %s / %s clashes with channel %s / %s of scenario %s", c.Name, c.ChannelID, x.Name, x.ChannelID, s.Name)
				}
			}
		}
		out := sn.registered[:0]
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
	})
}

// Unregister removes a channel registered at run time.
func (r *Registry) Unregister(name string) bool {
	found := false
	_ = r.update(func(sn *snapshot) error {
		sn.registered = slices.DeleteFunc(sn.registered, func(x Registered) bool {
			found = found || x.Name == name
			return x.Name == name
		})
		return nil
	})
	return found
}

// Registered lists the channels registered at run time.
func (r *Registry) Registered() []Registered { return slices.Clone(r.snap().registered) }

// lookup finds a channel by a predicate: registered channels first; then
// a channel activated onto a scenario of its own, with that scenario's
// entry for it (credentials included); then the active scenario's
// channels. A scenario active only for one channel lends nothing to its
// other channels.
func (r *Registry) lookup(match func(model.Channel) bool) (model.Channel, *Scenario, bool) {
	sn := r.snap()
	for _, c := range sn.registered {
		if match(c.Channel) {
			return c.Channel, r.ActiveFor(c.Name), true
		}
	}
	for ch, n := range sn.perChannel {
		if c, ok := channelIn(sn.loaded[n], ch); ok && match(c) {
			return c, sn.loaded[n], true
		}
	}
	a := r.Active()
	for _, c := range a.Channels {
		if !match(c) {
			continue
		}
		if n, ok := sn.perChannel[c.Name]; ok {
			if _, own := channelIn(sn.loaded[n], c.Name); own {
				continue // its own scenario's entry governs it
			}
		}
		return c, r.ActiveFor(c.Name), true
	}
	return model.Channel{}, a, false
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

// ChannelSpec is a run-time channel as the control API takes it and the
// store keeps it.
type ChannelSpec struct {
	Name        string `json:"name"`
	ChannelID   string `json:"channelId,omitempty"`
	Certificate string `json:"certificate"`
	AppKey      string `json:"appKey,omitempty"`
	SecKey      string `json:"secKey,omitempty"`
	WebhookURL  string `json:"webhookUrl,omitempty"`
	Scenario    string `json:"scenario,omitempty"`
}

// Compile parses the certificate (AUTH-4: PEM certificate or public key).
func (c ChannelSpec) Compile() (Registered, error) {
	if c.ChannelID == "" {
		c.ChannelID = c.Name
	}
	pub, err := channelKey(Channel{Certificate: c.Certificate}, Sources{})
	if err != nil {
		return Registered{}, fmt.Errorf("certificate: %w", err)
	}
	return Registered{Channel: model.Channel{
		Name: c.Name, ChannelID: c.ChannelID, PublicKey: pub,
		AppKey: c.AppKey, SecKey: c.SecKey, WebhookURL: c.WebhookURL,
	}, Scenario: c.Scenario}, nil
}

// Stored is a scenario the control API loaded, as the store keeps it:
// uploaded YAML is kept whole; a file is kept by path and re-read.
type Stored struct {
	Name string `json:"name"`
	Path string `json:"path,omitempty"`
	YAML string `json:"yaml,omitempty"`
}
