package controlplane

import (
	"fmt"
	"slices"
	"strings"
)

// InForce is what governs the channels now, restored from the data folder
// or set since: the active scenario, the channels that run another one,
// and the run-time fault rules. The start line and /__sim/health show it,
// so what survived a restart is never invisible.
type InForce struct {
	Scenario string            `json:"scenario"`
	Channels map[string]string `json:"channels"`
	Faults   []FaultInForce    `json:"faults"`
}

// FaultInForce is a run-time rule, briefly.
type FaultInForce struct {
	ID       string `json:"id"`
	Endpoint string `json:"endpoint"`
	Channel  string `json:"channel,omitempty"`
	Kind     string `json:"kind"`
	Fired    int    `json:"fired"`
	Spent    bool   `json:"spent"`
}

// InForce reads what governs the channels now.
func (p *Plane) InForce() InForce {
	in := InForce{Scenario: p.scenarios.Active().Name, Channels: p.scenarios.PerChannel(), Faults: []FaultInForce{}}
	for _, st := range p.faults.List() {
		in.Faults = append(in.Faults, FaultInForce{ID: st.ID, Endpoint: st.Endpoint, Channel: st.Channel, Kind: st.Action.Kind, Fired: st.Fired, Spent: st.Spent})
	}
	return in
}

// String is InForce for a log line: "CHANNEL=SCENARIO ..." and the
// rules' ids (spent ones marked).
func (f FaultInForce) String() string {
	s := f.ID
	if f.Spent {
		s += "(spent)"
	}
	return s
}

// FaultIDs joins the rules' ids for a log line ("" when none).
func (in InForce) FaultIDs() string {
	ids := make([]string, len(in.Faults))
	for i, f := range in.Faults {
		ids[i] = f.String()
	}
	return strings.Join(ids, ",")
}

// ChannelScenarios joins the per-channel scenarios for a log line.
func (in InForce) ChannelScenarios() string {
	var parts []string
	for ch, sc := range in.Channels {
		parts = append(parts, fmt.Sprintf("%s=%s", ch, sc))
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}
