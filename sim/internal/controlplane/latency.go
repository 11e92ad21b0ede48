package controlplane

import (
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/latency"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
)

// kindLatency keeps a run-time latency profile, keyed by endpoint and
// channel.
const kindLatency = "latency"

func latencyKey(endpoint, channel string) string { return channel + "\x00" + endpoint }

// Latency is the run-time latency profiles, consulted before the
// governing scenario's own.
func (p *Plane) Latency() *latency.Set { return p.latency }

// SetLatency puts profile pr in force (replacing the one of its endpoint
// and channel) after saving it: it is in force again after a restart.
func (p *Plane) SetLatency(pr latency.Profile) (latency.Profile, error) {
	if err := latency.Check(pr, fault.NotAnOperation); err != nil { // the scenario files' check, in their words
		return pr, refuse(refusal.Invalid, "%v", err)
	}
	if err := p.knownOrEvery(pr.Channel); err != nil {
		return pr, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.store.WriteConfig(put(kindLatency, latencyKey(pr.Endpoint, pr.Channel), pr)); err != nil {
		return pr, err
	}
	p.latency.Put(pr)
	return pr, nil
}

// RemoveLatency drops the run-time profiles of endpoint ("" every one)
// for channel ("" the every-channel ones; all: every channel's too) and
// returns them; the scenario's own profiles are in force again.
func (p *Plane) RemoveLatency(endpoint, channel string, all bool) ([]latency.Profile, error) {
	if err := p.knownOrEvery(channel); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var writes []stateWrite
	for _, pr := range p.latency.List() {
		if (endpoint == "" || pr.Endpoint == endpoint) && (all || pr.Channel == channel) {
			writes = append(writes, del(kindLatency, latencyKey(pr.Endpoint, pr.Channel)))
		}
	}
	if err := p.store.WriteConfig(writes...); err != nil {
		return nil, err
	}
	gone := p.latency.Remove(endpoint, channel, all)
	if gone == nil {
		gone = []latency.Profile{}
	}
	return gone, nil
}

// restoreLatency puts a kept profile in force again at start-up.
func (p *Plane) restoreLatency(pr latency.Profile) error {
	if err := latency.Check(pr, fault.NotAnOperation); err != nil {
		return err
	}
	p.latency.Put(pr)
	return nil
}
