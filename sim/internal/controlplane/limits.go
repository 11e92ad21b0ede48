package controlplane

import (
	"github.com/rewardsim/rewardsim/sim/internal/limit"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
)

// kindLimit keeps a channel's capacity limit set at run time.
const kindLimit = "limit"

type limitRecord struct {
	Channel string       `json:"channel"`
	Limit   limit.Config `json:"limit"`
}

// Limits are the channels' capacity limiters (the front door admits
// through them); only the plane overrides or drops a run-time limit.
func (p *Plane) Limits() *limit.Set { return p.limits }

// SetLimit puts cfg in force for channel over its scenario's limit, kept
// across a restart. A limit that bounds nothing or oversteps a bound is
// refused, naming the field.
func (p *Plane) SetLimit(channel string, cfg limit.Config) error {
	if err := cfg.Check(); err != nil {
		return refuse(refusal.Invalid, "%v", err)
	}
	if err := p.knownChannel(channel); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.store.WriteConfig(put(kindLimit, channel, limitRecord{channel, cfg})); err != nil {
		return err
	}
	p.limits.Override(channel, cfg)
	return nil
}

// RemoveLimit drops channel's run-time limit: its scenario's, if any, is
// in force again. Not found when there was none.
func (p *Plane) RemoveLimit(channel string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.limits.OverrideOf(channel); !ok {
		return refuse(refusal.NotFound, "channel %q has no limit set at run time", channel)
	}
	if err := p.store.WriteConfig(del(kindLimit, channel)); err != nil {
		return err
	}
	p.limits.Drop(channel)
	return nil
}

// limitWrites are the deletes of channel's limit record (the channel is
// being removed; the caller drops the limit once they are saved).
func (p *Plane) limitWrites(channel string) []stateWrite {
	if _, ok := p.limits.OverrideOf(channel); !ok {
		return nil
	}
	return []stateWrite{del(kindLimit, channel)}
}

// restoreLimits puts the kept limits in force at start-up.
func (p *Plane) restoreLimits() {
	restore(p, kindLimit, func(r limitRecord) error {
		if err := r.Limit.Check(); err != nil {
			return err
		}
		p.limits.Override(r.Channel, r.Limit)
		return nil
	})
}
