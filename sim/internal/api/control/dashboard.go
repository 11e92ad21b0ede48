package control

import (
	"context"
	_ "embed"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
	"go.yaml.in/yaml/v3"

	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/picture"
	"github.com/rewardsim/rewardsim/sim/internal/report"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/webhook"
)

//go:embed dashboard.html
var dashboardHTML string

var dashboardTmpl = template.Must(template.New("dashboard").Funcs(template.FuncMap{
	"prev": func(seq uint64) uint64 { return seq - 1 },
}).Parse(dashboardHTML))

// DashboardUsers is how many users per channel the dashboard lists.
const DashboardUsers = 200

type dashChannel struct {
	Name, ChannelID string
	// Scenario governs the channel; Source says whether the channel was
	// registered at run time or comes with the active scenario.
	Scenario, Source string
	Switches         string
	Campaigns        int
	Summary          cards.Summary
	// Funnels (one per campaign) and Stocks (one per offer) are SVG.
	Funnels, Stocks []template.HTML
}

// dashFilter narrows the journal panel and draws the flow it selects.
type dashFilter struct {
	Channel, VirtualID, Endpoint string
	// Assets shows the simulator's own assets (images, styles, favicon),
	// hidden by default: they are noise beside the publisher's calls.
	Assets bool
}

type dashView struct {
	Now                       string
	Scenario                  string
	Description, Source       string
	Switches, SDK             string
	FaultRules                int
	Channels                  []dashChannel
	UsersShown                int
	Journal, Faults, Webhooks string
	Report                    string
	Filter                    dashFilter
	// Hidden counts the asset requests the filter left out.
	Hidden int
	// Diagram is the sequence diagram of the filtered flow, when a
	// channel or user is chosen.
	Diagram, DiagramURL template.HTML
	Pushes              []webhook.Push

	// The live panels.
	JournalStored  int
	JournalDropped uint64
	Recent         []journal.Entry
	RuntimeFaults  []fault.Status
	Pending        []webhook.Push
	Findings       []report.Finding
	// FindingsOver is how many of the latest entries Findings cover.
	FindingsOver int
}

// DashboardRecent is how many of the latest exchanges the dashboard lists.
const DashboardRecent = 20

// DashboardWindow is how many of the latest entries the dashboard's
// findings cover: the page reads only these, so it costs the same at any
// journal size (the full report is /__sim/report).
const DashboardWindow = 300

// Dashboard is the read-only overview (GET /__sim/ and /__sim/dashboard):
// the active scenario and its switches, tracking
// counts and cards per user of each channel, the latest exchanges of the
// journal, the control API's fault rules, pending webhook pushes and the
// conformance report's findings, each linking to its control call.
func (a *API) Dashboard(c echo.Context) error {
	sc := a.scenarios.Active()
	q := c.QueryParams()
	v := dashView{
		Now: a.plane.Clock().Now().In(sc.Location).Format("2006-01-02 15:04:05.000 -07:00"), Scenario: sc.Name,
		Description: sc.Description, Source: sc.Source, FaultRules: len(sc.File.Faults), UsersShown: DashboardUsers,
		Switches: yamlOf(a.effectiveSwitches(sc)), SDK: yamlOf(sc.File.SDK),
		Journal: "/__sim/journal", Faults: "/__sim/faults", Webhooks: "/__sim/webhooks", Report: "/__sim/report",
		Filter: dashFilter{Channel: q.Get("channel"), VirtualID: q.Get("virtualId"), Endpoint: q.Get("endpoint"), Assets: q.Get("assets") != ""},
	}
	for _, ch := range a.channels() {
		sum, err := a.cards.Summary(ch.Name, DashboardUsers)
		if err != nil {
			return err
		}
		chsc := a.scenarios.ActiveFor(ch.Name)
		funnels, stocks, err := a.charts(chsc, ch.Name, a.plane.Clock().Now().In(chsc.Location)) // one timezone on the page: the scenario's
		if err != nil {
			return err
		}
		v.Channels = append(v.Channels, dashChannel{
			Name: ch.Name, ChannelID: ch.ChannelID, Scenario: chsc.Name, Source: ch.Source,
			Switches: yamlOf(a.effectiveSwitches(chsc)), Campaigns: len(chsc.CampaignsOf(ch.Name)), Summary: sum,
			Funnels: funnels, Stocks: stocks,
		})
	}
	if err := a.livePanels(c.Request().Context(), &v); err != nil {
		return err
	}
	var b strings.Builder
	if err := dashboardTmpl.Execute(&b, v); err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.HTML(http.StatusOK, b.String())
}

// effectiveSwitches are the switches in force: a webhook deadline the
// scenario leaves at 0 is the simulator's --webhook-deadline.
func (a *API) effectiveSwitches(sc *scenario.Scenario) scenario.Switches {
	sw := sc.File.Switches
	if sw.Webhook.Deadline == 0 {
		sw.Webhook.Deadline = model.Duration(a.deadline)
	}
	return sw
}

// livePanels fills the journal, faults, webhooks and report panels.
func (a *API) livePanels(ctx context.Context, v *dashView) error {
	v.RuntimeFaults = a.plane.Faults().List()
	all, err := a.hooks.List("")
	if err != nil {
		return err
	}
	loc := a.scenarios.Active().Location // one timezone on the page: the scenario's, as the header
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
	v.Pushes = all[max(0, len(all)-DashboardRecent):]
	// Only the newest entries are read, so the page costs the same at any
	// journal size; /__sim/diagram.svg and /__sim/report read the rest.
	p, err := a.journal.Tail(ctx, DashboardWindow)
	if err != nil {
		return err
	}
	es := p.Entries
	for i := range es {
		es[i] = es[i].Masked()
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
		if len(v.Recent) < DashboardRecent {
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
	return nil
}

func yamlOf(v any) string {
	raw, err := yaml.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(raw)
}
