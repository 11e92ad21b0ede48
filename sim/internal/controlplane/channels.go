package controlplane

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

// ChannelSpec is a run-time channel as the control API takes it and the
// store keeps it.
type ChannelSpec struct {
	Name        string `json:"name"`
	ChannelID   string `json:"channelId,omitempty"`
	Certificate string `json:"certificate"`
	AppKey      string `json:"appKey,omitempty"`
	SecKey      string `json:"secKey,omitempty"`
	// SecKeyHash is what the store keeps instead of SecKey (model.HashSecKey).
	SecKeyHash string `json:"secKeyHash,omitempty"`
	WebhookURL string `json:"webhookUrl,omitempty"`
	Scenario   string `json:"scenario,omitempty"`
	// Like names a channel whose campaigns, pools, offers, switches,
	// settings and (unless given) credentials the channel copies, from
	// the scenario in force for it (Scenario.Like).
	Like string `json:"like,omitempty"`
	// Isolated makes a copy (Like) with fresh credentials instead of the
	// original's (always so on a shared box, isolated.go).
	Isolated bool `json:"isolated,omitempty"`
	// Fresh is what an isolated copy was given, for the answer only.
	Fresh *Credentials `json:"-"`
	// KeyOrigin is model.KeyOriginLibrary when a test library made the key.
	KeyOrigin string `json:"keyOrigin,omitempty"`
}

// ChannelPatch is the settings PATCH /__sim/channels/{name} may change;
// a nil field is left as it is.
type ChannelPatch struct {
	WebhookURL  *string `json:"webhookUrl"`
	Certificate *string `json:"certificate"`
	AppKey      *string `json:"appKey"`
	SecKey      *string `json:"secKey"`
	KeyOrigin   *string `json:"keyOrigin"`
}

// compile parses the certificate (AUTH-4: PEM certificate or public key).
func (c ChannelSpec) compile() (scenario.Registered, error) {
	if c.ChannelID == "" {
		c.ChannelID = c.Name
	}
	pub, err := envelope.ParsePublicKeyPEM([]byte(c.Certificate))
	if err != nil {
		return scenario.Registered{}, fmt.Errorf("certificate: %w", err)
	}
	return scenario.Registered{Channel: model.Channel{
		Name: c.Name, ChannelID: c.ChannelID, PublicKey: pub,
		AppKey: c.AppKey, SecKey: c.SecKey, SecKeyHash: c.SecKeyHash, WebhookURL: c.WebhookURL,
		KeyOrigin: c.KeyOrigin,
	}, Scenario: c.Scenario}, nil
}

// registerIn compiles spec and registers it in d.
func registerIn(d *scenario.Draft, spec ChannelSpec) error {
	reg, err := spec.compile()
	if err == nil && spec.Like != "" {
		reg.Own, _, err = d.Like(spec.Like, reg.Channel)
	}
	if err == nil {
		err = d.Register(reg)
	}
	return err
}

// fillLike completes a spec made like another channel with that
// channel's credentials (certificate, appKey, secKey, webhook URL)
// where it gives none of its own.
func (p *Plane) fillLike(spec *ChannelSpec) error {
	src, _, ok := p.scenarios.ByChannelName(spec.Like)
	if !ok {
		return refuse(refusal.NotFound, "like: no channel named %q", spec.Like)
	}
	if spec.Like == spec.Name {
		return refuse(refusal.Invalid, "like: a channel cannot be made like itself")
	}
	if spec.Certificate == "" {
		cert, err := envelope.PublicKeyPEM(src.PublicKey)
		if err != nil {
			return err
		}
		spec.Certificate = string(cert)
	}
	if spec.AppKey == "" && spec.SecKey == "" {
		spec.AppKey, spec.SecKey, spec.SecKeyHash = src.AppKey, src.SecKey, src.SecKeyHash
	}
	if spec.WebhookURL == "" {
		spec.WebhookURL = src.WebhookURL
	}
	return nil
}

// RegisterChannel registers (or re-registers, by name) a channel: a CI
// pipeline's own channel on a shared simulator. An empty ChannelID is
// the name.
func (p *Plane) RegisterChannel(spec ChannelSpec) (ChannelSpec, error) {
	spec, _, err := p.registerChannel(spec)
	return spec, err
}

// RegisterChannelLike is RegisterChannel that also says what a channel
// made like another copied (zero when spec names none), the other
// channel's run-time fault rules included (copyRuntimeFaults).
func (p *Plane) RegisterChannelLike(spec ChannelSpec) (ChannelSpec, scenario.Copied, error) {
	spec, copied, err := p.registerChannel(spec)
	if err == nil && spec.Like != "" {
		var ids []string
		ids, err = p.copyRuntimeFaults(spec.Like, spec.Name)
		copied.Faults = append(copied.Faults, ids...)
	}
	return spec, copied, err
}

func (p *Plane) registerChannel(spec ChannelSpec) (ChannelSpec, scenario.Copied, error) {
	var copied scenario.Copied
	if spec.ChannelID == "" {
		spec.ChannelID = spec.Name
	}
	if spec.Like != "" && spec.Scenario != "" {
		return spec, copied, refuse(refusal.Invalid, "give like or scenario, not both")
	}
	if spec.Like != "" {
		if err := p.isolate(&spec); err != nil {
			return spec, copied, err
		}
		if err := p.fillLike(&spec); err != nil {
			return spec, copied, err
		}
	}
	if spec.SecKey != "" {
		if p.secrets != nil {
			p.secrets.LearnSecKey(spec.SecKey) // masked wherever it appears
		}
		// The store keeps a salted hash, not the secKey (docs/security.md).
		salt := make([]byte, 16)
		if _, err := io.ReadFull(p.rand, salt); err != nil {
			return spec, copied, err
		}
		spec.SecKey, spec.SecKeyHash = "", model.HashSecKey(salt, spec.SecKey)
	}
	reg, err := spec.compile()
	if err != nil {
		return spec, copied, refuse(refusal.Invalid, "%v", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return spec, copied, p.scenarios.Change(func(d *scenario.Draft) error {
		if spec.Like != "" {
			var err error
			if reg.Own, copied, err = d.Like(spec.Like, reg.Channel); err != nil {
				return refuse(refusal.Invalid, "like %s: %v", spec.Like, err)
			}
		}
		if err := d.Register(reg); err != nil {
			return refuse(refusal.Conflict, "%v", err)
		}
		return p.store.WriteConfig(put(kindChannel, spec.Name, spec))
	})
}

// RegisteredSpec is the stored spec of a channel registered at run time
// (its secKey only as a hash), and whether there is one.
func (p *Plane) RegisteredSpec(name string) (ChannelSpec, bool, error) {
	raws, err := p.store.ConfigList(kindChannel)
	if err != nil {
		return ChannelSpec{}, false, err
	}
	for _, raw := range raws {
		var spec ChannelSpec
		if json.Unmarshal(raw, &spec) == nil && spec.Name == name {
			return spec, true, nil
		}
	}
	return ChannelSpec{}, false, nil
}

// PatchChannel changes some settings of a channel registered at run
// time and keeps the rest: it is re-registered under its name from its
// stored spec, so its state, faults, clock and journal, all kept by
// name, stay its own. A scenario's own channel is refused (409).
func (p *Plane) PatchChannel(name string, patch ChannelPatch) (ChannelSpec, error) {
	spec, ok, err := p.RegisteredSpec(name)
	if err != nil {
		return spec, err
	}
	if !ok {
		if _, _, inScenario := p.scenarios.ByChannelName(name); inScenario {
			return spec, refuse(refusal.Conflict, "channel %q comes from a scenario: change the scenario, or register a channel of your own", name)
		}
		return spec, refuse(refusal.NotFound, "no channel named %q was registered at run time", name)
	}
	for dst, v := range map[*string]*string{&spec.WebhookURL: patch.WebhookURL, &spec.Certificate: patch.Certificate, &spec.AppKey: patch.AppKey, &spec.KeyOrigin: patch.KeyOrigin} {
		if v != nil {
			*dst = *v
		}
	}
	if patch.SecKey != nil {
		spec.SecKey, spec.SecKeyHash = *patch.SecKey, ""
	}
	return p.RegisterChannel(spec)
}

// UnregisterChannel removes a channel registered at run time with
// everything the store keys by it, in one transaction: its state (cards,
// coupons, tokens, sessions, pending pushes), its own clock, the scenario
// activated for it, its control token and the run-time fault rules and latency profiles that name it. A channel made again under the name
// inherits nothing (issue 42). The journal, a file of its own, is the
// caller's to drop.
func (p *Plane) UnregisterChannel(name string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.scenarios.Change(func(d *scenario.Draft) error {
		if !d.Unregister(name) {
			return refuse(refusal.NotFound, "no channel named %q was registered at run time", name)
		}
		_ = d.Activate("", name) // and the scenario activated for it
		writes := []stateWrite{del(kindChannel, name), del(kindClock, channelClockKey(name)), del(kindActivation, name), del(kindStoryClock, name), del(kindChannelToken, name)}
		writes = append(writes, p.switchWrites(d, name)...)
		writes = append(writes, p.limitWrites(name)...)
		var rules []string
		for _, st := range p.faults.List() {
			if st.Channel == name {
				rules = append(rules, st.ID)
				writes = append(writes, del(kindFault, st.ID))
			}
		}
		for _, pr := range p.latency.List() {
			if pr.Channel == name {
				writes = append(writes, del(kindLatency, latencyKey(pr.Endpoint, pr.Channel)))
			}
		}
		if err := p.store.ResetChannel(name, writes...); err != nil {
			return err
		}
		p.latency.Remove("", name, false)
		p.clocks.Drop(name)
		p.tokens.set(name, "") // a channel made again under the name gets no token of the old one
		p.limits.Drop(name)
		for _, id := range rules {
			p.faults.Remove(id)
		}
		return nil
	})
}
