package controlplane

import (
	"slices"
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/refusal"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

// kindSwitch keeps a behaviour switch overridden at run time, for one
// channel or for every channel.
const kindSwitch = "switch"

type switchRecord struct {
	Channel string `json:"channel,omitempty"`
	Name    string `json:"name"`
	Value   string `json:"value"`
}

func switchKey(channel, name string) string { return channel + "\x00" + name }

// switchOf finds the switch name names, or refuses it with the names
// there are.
func switchOf(name string) (scenario.SwitchDef, error) {
	d, ok := scenario.SwitchNamed(name)
	if !ok {
		return d, refuse(refusal.NotFound, "no switch named %q; the switches are %s", name, strings.Join(scenario.SwitchNames(), ", "))
	}
	return d, nil
}

// knownOrEvery refuses a channel not in force ("" is every channel).
func (p *Plane) knownOrEvery(channel string) error {
	if channel == "" {
		return nil
	}
	return p.knownChannel(channel)
}

// SetSwitch overrides switch name with value for channel ("" every
// channel) over what the governing scenario says; kept across a restart.
// A value the switch does not take is refused with those it takes.
func (p *Plane) SetSwitch(channel, name, value string) (scenario.SwitchDef, error) {
	d, err := switchOf(name)
	if err != nil {
		return d, err
	}
	v, err := d.Check(value)
	if err != nil {
		return d, refuse(refusal.Invalid, "%v", err)
	}
	if err := p.knownOrEvery(channel); err != nil {
		return d, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return d, p.scenarios.Change(func(dr *scenario.Draft) error {
		if err := dr.SetSwitch(channel, d.Name, v); err != nil {
			return refuse(refusal.Conflict, "%v", err)
		}
		return p.store.WriteConfig(put(kindSwitch, switchKey(channel, d.Name), switchRecord{channel, d.Name, v}))
	})
}

// ResetSwitches drops channel's override of switch name ("" every one of
// channel's): the governing scenario's value is in force again. It
// returns the names reset.
func (p *Plane) ResetSwitches(channel, name string) ([]string, error) {
	names := []string{}
	if name != "" {
		d, err := switchOf(name)
		if err != nil {
			return nil, err
		}
		names = append(names, d.Name)
	}
	if err := p.knownOrEvery(channel); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	over := p.scenarios.SwitchOverrides()[channel]
	if name == "" {
		for n := range over {
			names = append(names, n)
		}
		slices.Sort(names)
	}
	reset := []string{}
	err := p.scenarios.Change(func(dr *scenario.Draft) error {
		var writes []stateWrite
		for _, n := range names {
			if _, ok := over[n]; ok {
				_ = dr.SetSwitch(channel, n, "") // a drop is never refused
				writes = append(writes, del(kindSwitch, switchKey(channel, n)))
				reset = append(reset, n)
			}
		}
		return p.store.WriteConfig(writes...)
	})
	return reset, err
}

// switchWrites drops channel's overrides in d and returns the deletes of
// their records (the channel is being removed).
func (p *Plane) switchWrites(d *scenario.Draft, channel string) []stateWrite {
	var writes []stateWrite
	for n := range p.scenarios.SwitchOverrides()[channel] {
		_ = d.SetSwitch(channel, n, "")
		writes = append(writes, del(kindSwitch, switchKey(channel, n)))
	}
	return writes
}

// restoreSwitch puts a kept override in force again at start-up.
func restoreSwitch(d *scenario.Draft, r switchRecord) error {
	def, err := switchOf(r.Name)
	if err != nil {
		return err
	}
	v, err := def.Check(r.Value)
	if err != nil {
		return err
	}
	return d.SetSwitch(r.Channel, def.Name, v)
}
