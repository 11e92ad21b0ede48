package controlplane

import (
	"encoding/json"

	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
	"github.com/rewardsim/rewardsim/sim/internal/token"
)

// AddFault arms a run-time rule (same shape as a scenario file's faults[]
// item), consulted before the scenario's own rules, after saving it: it
// is re-armed after a restart. A rule without an ID gets one; a rule
// with the ID of an armed one replaces it in place, with fresh counters.
func (p *Plane) AddFault(r fault.Rule) (fault.Status, error) {
	// The scenario files' check, so a rule is refused in the same words wherever it is written.
	if err := fault.Check(r); err != nil {
		return fault.Status{}, refuse(refusal.Invalid, "%v", err)
	}
	if r.Channel != "" {
		if err := p.knownChannel(r.Channel); err != nil {
			return fault.Status{}, err
		}
	}
	if r.ID == "" {
		id, err := token.NewOpaque(p.rand, 6)
		if err != nil {
			return fault.Status{}, err
		}
		r.ID = "f-" + id
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.faults.Arm(r, func(st fault.Status) error {
		aged := p.agedOut()
		writes := []stateWrite{put(kindFault, r.ID, st)}
		for _, id := range aged {
			writes = append(writes, del(kindFault, id))
		}
		if err := p.store.WriteConfig(writes...); err != nil {
			return err
		}
		for _, id := range aged {
			p.faults.Remove(id)
		}
		return nil
	})
}

// MaxSpentRules bounds the spent rules the list keeps: a one-shot rule
// that fired its times stays listed (greyed on the dashboard) until this
// many newer ones are spent, then a rule added drops it. What it did
// stays in the journal, whose entries name it.
const MaxSpentRules = 20

// agedOut is the spent rules beyond MaxSpentRules, the oldest first.
func (p *Plane) agedOut() []string {
	var spent []string
	for _, st := range p.faults.List() { // in the order added
		if st.Spent {
			spent = append(spent, st.ID)
		}
	}
	if len(spent) <= MaxSpentRules {
		return nil
	}
	return spent[:len(spent)-MaxSpentRules]
}

// RemoveFault disarms a run-time rule and forgets it.
func (p *Plane) RemoveFault(id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.armed(id) {
		return refuse(refusal.NotFound, "no fault rule %q", id)
	}
	if err := p.store.WriteConfig(del(kindFault, id)); err != nil {
		return err
	}
	p.faults.Remove(id)
	return nil
}

// ClearFaults disarms and forgets every run-time rule, in one change.
func (p *Plane) ClearFaults() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	rules := p.faults.List()
	writes := make([]stateWrite, 0, len(rules))
	for _, st := range rules {
		writes = append(writes, del(kindFault, st.ID))
	}
	if err := p.store.WriteConfig(writes...); err != nil {
		return err
	}
	for _, st := range rules {
		p.faults.Remove(st.ID)
	}
	return nil
}

func (p *Plane) armed(id string) bool {
	for _, st := range p.faults.List() {
		if st.ID == id {
			return true
		}
	}
	return false
}

// saveCounters keeps a rule's counters when it fires, so a spent one-shot
// rule stays spent after a restart. Only a newer count replaces the
// stored one, and only while the rule exists, so concurrent fires and
// deletes stay consistent. A failed save is logged: the fire has happened.
func (p *Plane) saveCounters(st fault.Status) {
	_, err := p.store.ReplaceConfig(kindFault, st.ID, st, func(old []byte) bool {
		var prev fault.Status
		return json.Unmarshal(old, &prev) == nil && (prev.Fired < st.Fired || prev.Fired == st.Fired && prev.Seen < st.Seen)
	})
	if err != nil {
		p.log.Error("persisting fault counters", "rule", st.ID, "err", err)
	}
}
