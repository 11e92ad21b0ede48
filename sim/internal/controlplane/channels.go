package controlplane

import (
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
	}, Scenario: c.Scenario}, nil
}

// registerIn compiles spec and registers it in d.
func registerIn(d *scenario.Draft, spec ChannelSpec) error {
	reg, err := spec.compile()
	if err == nil {
		err = d.Register(reg)
	}
	return err
}

// RegisterChannel registers (or re-registers, by name) a channel: a CI
// pipeline's own channel on a shared simulator. An empty ChannelID is
// the name.
func (p *Plane) RegisterChannel(spec ChannelSpec) (ChannelSpec, error) {
	if spec.ChannelID == "" {
		spec.ChannelID = spec.Name
	}
	if spec.SecKey != "" {
		// The store keeps a salted hash, not the secKey (docs/security.md).
		salt := make([]byte, 16)
		if _, err := io.ReadFull(p.rand, salt); err != nil {
			return spec, err
		}
		spec.SecKey, spec.SecKeyHash = "", model.HashSecKey(salt, spec.SecKey)
	}
	reg, err := spec.compile()
	if err != nil {
		return spec, refuse(refusal.Invalid, "%v", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return spec, p.scenarios.Change(func(d *scenario.Draft) error {
		if err := d.Register(reg); err != nil {
			return refuse(refusal.Conflict, "%v", err)
		}
		return p.store.WriteConfig(put(kindChannel, spec.Name, spec))
	})
}

// UnregisterChannel removes a channel registered at run time.
func (p *Plane) UnregisterChannel(name string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.scenarios.Change(func(d *scenario.Draft) error {
		if !d.Unregister(name) {
			return refuse(refusal.NotFound, "no channel named %q was registered at run time", name)
		}
		return p.store.WriteConfig(del(kindChannel, name))
	})
}
