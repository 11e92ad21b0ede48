package dashboard

import (
	"slices"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
	"github.com/rewardsim/rewardsim/sim/internal/story"
	"github.com/rewardsim/rewardsim/sim/internal/webhook"
)

// Panel is a channel's control panel: what the page offers to change,
// and what is in force now. Every change it makes is a control API call
// the page sends itself (dashboard.html), so the panel is only a view.
type Panel struct {
	// Endpoints are the operations that can show a fault, each with the
	// kinds it can show and the run-time rules armed on it for the channel.
	Endpoints []EndpointFaults
	Stories   []story.Story
	Applied   []string // stories applied to the channel
	Clock     ClockLine
	// Scenarios are the loaded scenarios the select offers.
	Scenarios []string
	Offers    []string
	Reasons   []string
	Codes     []string
	// FileFaults is how many fault rules the governing scenario's file has.
	FileFaults int
	// Live are the run-time rules that can still fire on the channel (its
	// own and those of every channel); Spent the one-shot rules that
	// fired their times, folded on the page.
	Live, Spent []Armed
	// Switches are the channel's behaviour switches, each a select;
	// Overridden those an override sets, shown among what is live.
	Switches, Overridden []scenario.SwitchState
	// Limit is the channel's capacity limit in force with its counts, in
	// one line ("" none; docs/limits.md).
	Limit string
}

// EndpointFaults is one row of the panel's fault toggles.
type EndpointFaults struct {
	Name  string
	Kinds []string
	Armed []Armed
}

// Armed is a run-time rule on the panel; Story names the story that
// armed it ("" for a rule armed on its own), so its chip says so.
type Armed struct {
	fault.Status
	Story string
}

func armed(r fault.Status) Armed {
	name, _, _ := story.ParseRuleID(r.ID)
	return Armed{Status: r, Story: name}
}

// ClockLine is a channel's time and whether it runs on a clock of its own.
type ClockLine struct {
	Now, Mode string
	Own       bool
}

// panel builds the control panel of channel ch, governed by scenario sc
// (its name and file faults given), with the run-time rules rules.
func (s Sources) panel(ch, scenario string, fileFaults int, offers []string, rules []fault.Status, loc *time.Location) Panel {
	p := Panel{Stories: story.All(), Reasons: webhook.Reasons, Offers: offers, FileFaults: fileFaults, Codes: schema.FaultErrorCodes()}
	if s.Stories != nil {
		p.Applied = s.Stories.All()[ch]
	}
	for _, op := range contract.Ops {
		kinds := fault.Shown(op.Name)
		if len(kinds) == 0 {
			continue
		}
		row := EndpointFaults{Name: op.Name, Kinds: kinds}
		for _, r := range rules {
			if r.Channel == ch && (r.Endpoint == op.Name || r.Endpoint == "*" && slices.Contains(kinds, r.Action.Kind)) {
				row.Armed = append(row.Armed, armed(r))
			}
		}
		p.Endpoints = append(p.Endpoints, row)
	}
	for _, r := range rules {
		switch {
		case r.Channel != ch && r.Channel != "":
		case r.Spent:
			p.Spent = append(p.Spent, armed(r))
		default:
			p.Live = append(p.Live, armed(r))
		}
	}
	p.Switches = s.Scenarios.SwitchStates(ch)
	for _, sw := range p.Switches {
		if sw.Override != "" || sw.EveryChannel != "" {
			p.Overridden = append(p.Overridden, sw)
		}
	}
	p.Limit = s.limitLine(ch)
	if v, own, err := s.Plane.ChannelClockView(ch); err == nil {
		p.Clock = ClockLine{Now: v.Now.In(loc).Format("2006-01-02 15:04:05 -07:00"), Mode: v.Mode, Own: own}
	}
	for _, sc := range s.Scenarios.Scenarios() {
		p.Scenarios = append(p.Scenarios, sc.Name)
	}
	if !slices.Contains(p.Scenarios, scenario) {
		p.Scenarios = append(p.Scenarios, scenario)
	}
	return p
}
