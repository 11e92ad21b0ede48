package scenario

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Copied says what a channel made like another took from it.
type Copied struct {
	From      string   `json:"from"`
	Scenario  string   `json:"scenario"`
	Campaigns []string `json:"campaigns"`
	Pools     []string `json:"pools"`
	Offers    []string `json:"offers"`
	Faults    []string `json:"faults"`
	Settings  []string `json:"settings"`
}

// Like compiles the channel ch's own copy of s, made from the channel
// named src: src's campaigns, offers and popups renamed to ch, the pools
// those campaigns draw from, every switch and setting, and the faults
// that apply to src (fresh counters). Stock and counters are kept by
// channel name, so the copy's are its own from the first call.
func (s *Scenario) Like(src string, ch model.Channel) (*Scenario, Copied, error) {
	f := s.File
	cp := Copied{From: src, Scenario: s.Name, Campaigns: []string{}, Pools: []string{}, Offers: []string{}, Faults: []string{},
		Settings: []string{"switches", "tokens", "sessions", "sdk", "timezone", "service"}}
	der, err := x509.MarshalPKIXPublicKey(ch.PublicKey)
	if err != nil {
		return nil, cp, fmt.Errorf("certificate: %w", err)
	}
	f.Name = s.Name + "~" + ch.Name
	f.ChannelSpecs = []Channel{{Name: ch.Name, ChannelID: ch.ChannelID, AppKey: ch.AppKey, SecKey: ch.SecKey, WebhookURL: ch.WebhookURL,
		Certificate: string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))}}
	f.Campaigns, f.Pools = nil, nil
	pools := map[string]bool{}
	for _, c := range s.File.Campaigns {
		if c.Channel == src {
			c.Channel = ch.Name
			f.Campaigns = append(f.Campaigns, c)
			cp.Campaigns = append(cp.Campaigns, c.ID)
			pools[c.Pool] = true
		}
	}
	for _, p := range s.File.Pools {
		if pools[p.ID] {
			f.Pools = append(f.Pools, p)
			cp.Pools = append(cp.Pools, p.ID)
		}
	}
	f.Offers = map[string][]OfferFile{}
	if list, ok := s.File.Offers[src]; ok {
		f.Offers[ch.Name] = list
		for _, o := range list {
			cp.Offers = append(cp.Offers, o.ID)
		}
	}
	f.FaultRules = nil
	for _, r := range s.FaultRules {
		if r.Channel == "" || r.Channel == src {
			if r.Channel != "" {
				r.Channel = ch.Name
			}
			f.FaultRules = append(f.FaultRules, r)
			cp.Faults = append(cp.Faults, r.ID)
		}
	}
	f.SDK.Popups = nil
	for _, p := range s.File.SDK.Popups {
		if p.Channel == src {
			p.Channel = ch.Name
			f.SDK.Popups = append(f.SDK.Popups, p)
		}
	}
	f.SDK.Partners = map[string]string{}
	if p, ok := s.File.SDK.Partners[src]; ok {
		f.SDK.Partners[ch.Name] = p
	} else {
		f.SDK.Partners[ch.Name] = src // the app's iOS handler keeps the original's name
	}
	f.Switches = s.File.Switches
	out, err := compile(f.Name, &yaml.Node{}, f, Sources{})
	if err != nil {
		return nil, cp, err
	}
	out.Source = s.Source
	out.Channels[0].SecKeyHash = ch.SecKeyHash
	return out, cp, nil
}
