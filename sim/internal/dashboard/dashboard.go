// Package dashboard builds the view model of the control API's read-only
// overview from the owners of the state it shows; api/control only
// renders it.
package dashboard

import (
	"context"
	"html/template"
	"net/url"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/controlplane"
	"github.com/rewardsim/rewardsim/sim/internal/coupons"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/picture"
	"github.com/rewardsim/rewardsim/sim/internal/report"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/story"
	"github.com/rewardsim/rewardsim/sim/internal/webhook"
)

// Users is how many users per channel the dashboard lists.
const Users = 200

type Channel struct {
	Name, ChannelID string
	// Scenario governs the channel; Source says whether the channel was
	// registered at run time or comes with the active scenario.
	Scenario, Source string
	Switches         string
	Campaigns        int
	Summary          cards.Summary
	// Funnels (one per campaign) and Stocks (one per offer) are SVG.
	Funnels, Stocks []template.HTML
	// Panel is the channel's control panel.
	Panel Panel
}

// dashFilter narrows the journal panel and draws the flow it selects.
type Filter struct {
	Channel, VirtualID, Endpoint string
	// Assets shows the simulator's own assets (images, styles, favicon),
	// hidden by default: they are noise beside the publisher's calls.
	Assets bool
}

// LastSweep is what the dashboard says of the last sweep reported
// (rewardsim sweep --control): when, what ran, and its grades.
type LastSweep struct {
	Started, Command string
	Totals           []GradeCount
	Failed           bool
}

// GradeCount is how many rows of a sweep got one grade.
type GradeCount struct {
	Grade string
	Rows  int
}

type View struct {
	Now                       string
	Scenario                  string
	Description, Source       string
	Switches, SDK             string
	FaultRules                int
	Channels                  []Channel
	UsersShown                int
	Journal, Faults, Webhooks string
	Report                    string
	Filter                    Filter
	// Hidden counts the asset requests the filter left out.
	Hidden int
	// Diagram is the sequence diagram of the filtered flow, when a
	// channel or user is chosen.
	Diagram, DiagramURL template.HTML
	Pushes              []webhook.Push
	// PushGroups are Pushes grouped by referenceId: a storm is one row.
	PushGroups []PushGroup
	// CSRF goes with every write the page sends (header X-Rewardsim-CSRF):
	// the browser session's own, empty for a page opened without one.
	CSRF string
	// LastSweep is the last sweep reported to the simulator, if any.
	LastSweep *LastSweep

	// The live panels.
	JournalStored  int
	JournalDropped uint64
	Recent         []journal.Entry
	RuntimeFaults  []fault.Status
	Pending        []webhook.Push
	Findings       []report.Finding
	// FindingsOver is how many of the latest entries Findings cover.
	FindingsOver int
	// Latency is each latency profile in force beside its endpoint's
	// answered latency over the same latest entries.
	Latency []LatencyRow
}

// Recent is how many of the latest exchanges the dashboard lists.
const Recent = 20

// Window is how many of the latest entries the dashboard's
// findings cover: the page reads only these, so it costs the same at any
// journal size (the full report is /__sim/report).
const Window = 300

// Sources are the owners whose state the dashboard shows.
type Sources struct {
	Plane     *controlplane.Plane
	Scenarios *scenario.Registry
	Hooks     *webhook.Scheduler
	Journal   *journal.Journal
	Cards     *cards.Service
	Coupons   *coupons.Service // nil: no stock charts
	// Deadline is the webhook deadline in force when a scenario sets none.
	Deadline time.Duration
	// Stories is the book of stories applied per channel (nil: none).
	Stories *story.Book
}

// PushGroup is the pushes of one referenceId (a storm's repeats), oldest first.
type PushGroup struct {
	ReferenceID string
	Pushes      []webhook.Push
}

// groupPushes groups pushes by referenceId, each group where its first
// push is.
func groupPushes(ps []webhook.Push) []PushGroup {
	var out []PushGroup
	at := map[string]int{}
	for _, p := range ps {
		ref := p.Event.ReferenceID
		if i, ok := at[ref]; ok && ref != "" {
			out[i].Pushes = append(out[i].Pushes, p)
			continue
		}
		at[ref] = len(out)
		out = append(out, PushGroup{ReferenceID: ref, Pushes: []webhook.Push{p}})
	}
	return out
}

// ChannelRef is a channel in force and where it comes from.
type ChannelRef struct{ Name, ChannelID, Source string }

// Build is what the dashboard shows (GET /__sim/ and /__sim/dashboard):
// the active scenario and its switches, tracking counts and cards per
// user of each channel, the latest exchanges of the journal (narrowed by
// the query's channel, virtualId, endpoint and assets), the control API's
// fault rules, pending webhook pushes and the conformance report's
// findings.
func Build(ctx context.Context, s Sources, channels []ChannelRef, q url.Values) (View, error) {
	sc := s.Scenarios.Active()
	v := View{
		Now: s.Plane.Clock().Now().In(sc.Location).Format("2006-01-02 15:04:05.000 -07:00"), Scenario: sc.Name,
		Description: sc.Description, Source: sc.Source, FaultRules: len(sc.FaultRules), UsersShown: Users,
		Switches: yamlOf(s.effectiveSwitches(sc)), SDK: yamlOf(sc.File.SDK),
		Journal: "/__sim/journal", Faults: "/__sim/faults", Webhooks: "/__sim/webhooks", Report: "/__sim/report",
		Filter: Filter{Channel: q.Get("channel"), VirtualID: q.Get("virtualId"), Endpoint: q.Get("endpoint"), Assets: q.Get("assets") != ""},
	}
	rules := s.Plane.Faults().List()
	for _, ch := range channels {
		sum, err := s.Cards.Summary(ch.Name, Users)
		if err != nil {
			return v, err
		}
		chsc := s.Scenarios.ActiveFor(ch.Name)
		funnels, stocks, err := s.charts(chsc, ch.Name, s.Plane.Clock().Now().In(chsc.Location)) // one timezone on the page: the scenario's
		if err != nil {
			return v, err
		}
		var offers []string
		for _, o := range chsc.OfferList(ch.Name) {
			offers = append(offers, o.ID)
		}
		v.Channels = append(v.Channels, Channel{
			Name: ch.Name, ChannelID: ch.ChannelID, Scenario: chsc.Name, Source: ch.Source,
			Switches: yamlOf(s.effectiveSwitches(chsc)), Campaigns: len(chsc.CampaignsOf(ch.Name)), Summary: sum,
			Funnels: funnels, Stocks: stocks,
			Panel: s.panel(ch.Name, chsc.Name, len(chsc.FaultRules), offers, rules, chsc.Location),
		})
	}
	// The selected channel's panel comes first: the page's first screen
	// shows what is live on it.
	if sel := slices.IndexFunc(v.Channels, func(c Channel) bool { return c.Name == v.Filter.Channel }); sel > 0 {
		v.Channels = append([]Channel{v.Channels[sel]}, slices.Delete(slices.Clone(v.Channels), sel, sel+1)...)
	}
	return v, s.livePanels(ctx, &v)
}

// effectiveSwitches are the switches in force: a webhook deadline the
// scenario leaves at 0 is the simulator's --webhook-deadline.
func (s Sources) effectiveSwitches(sc *scenario.Scenario) scenario.Switches {
	sw := sc.File.Switches
	if sw.Webhook.Deadline == 0 {
		sw.Webhook.Deadline = model.Duration(s.Deadline)
	}
	return sw
}

// livePanels fills the journal, faults, webhooks and report panels.
func (s Sources) livePanels(ctx context.Context, v *View) error {
	v.RuntimeFaults = s.Plane.Faults().List()
	all, err := s.Hooks.List("")
	if err != nil {
		return err
	}
	loc := s.Scenarios.Active().Location // one timezone on the page: the scenario's, as the header
	for i := range all {
		p := &all[i] // decoded afresh by List: ours to change
		p.Due = p.Due.In(loc)
		for j := range p.Attempts {
			p.Attempts[j].At = p.Attempts[j].At.In(loc)
		}
		if p.State == webhook.Pending {
			v.Pending = append(v.Pending, *p)
		}
	}
	v.Pushes = all[max(0, len(all)-Recent):]
	v.PushGroups = groupPushes(v.Pushes)
	// Only the newest entries are read, so the page costs the same at any
	// journal size; /__sim/diagram.svg and /__sim/report read the rest.
	p, err := s.Journal.Tail(ctx, Window)
	if err != nil {
		return err
	}
	es := p.Entries
	for i := range es {
		es[i] = es[i].Masked(s.Journal.Secrets())
	}
	v.JournalStored, v.JournalDropped, v.FindingsOver = p.Stored, p.Dropped, len(es)
	f := journal.Filter{Channel: v.Filter.Channel, VirtualID: v.Filter.VirtualID, Endpoint: v.Filter.Endpoint}
	var flow []journal.Entry
	for i := len(es) - 1; i >= 0; i-- { // newest first
		e := &es[i]
		if !f.Match(e) {
			continue
		}
		if !v.Filter.Assets && picture.IsAsset(*e) {
			v.Hidden++
			continue
		}
		if len(v.Recent) < Recent {
			v.Recent = append(v.Recent, *e)
		}
		flow = append(flow, *e)
	}
	if v.Filter.Channel != "" || v.Filter.VirtualID != "" {
		slices.Reverse(flow)
		var svg strings.Builder
		if err := picture.Sequence(&svg, "flow of "+v.Filter.Channel+" "+v.Filter.VirtualID, picture.Calls(flow)); err != nil {
			return err
		}
		v.Diagram = template.HTML(svg.String()) // drawn by picture, every text escaped there
		u := url.Values{}
		for k, val := range map[string]string{"channel": v.Filter.Channel, "virtualId": v.Filter.VirtualID, "endpoint": v.Filter.Endpoint} {
			if val != "" {
				u.Set(k, val)
			}
		}
		v.DiagramURL = template.HTML("/__sim/diagram.svg?" + template.HTMLEscapeString(u.Encode()))
	}
	v.Findings = report.Build(es, report.Options{}).Findings
	v.Latency = s.latencyRows(es)
	return nil
}

func yamlOf(v any) string {
	raw, err := yaml.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(raw)
}
