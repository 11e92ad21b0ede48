package control

import (
	"context"
	_ "embed"
	"html/template"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"go.yaml.in/yaml/v3"

	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/report"
	"github.com/rewardsim/rewardsim/sim/internal/webhook"
)

//go:embed dashboard.html
var dashboardHTML string

var dashboardTmpl = template.Must(template.New("dashboard").Parse(dashboardHTML))

// DashboardUsers is how many users per channel the dashboard lists.
const DashboardUsers = 200

type dashChannel struct {
	Name, ChannelID string
	Campaigns       int
	Summary         cards.Summary
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
	v := dashView{
		Now: a.plane.Clock().Now().In(sc.Location).Format("2006-01-02 15:04:05.000 -07:00"), Scenario: sc.Name,
		Description: sc.Description, Source: sc.Source, FaultRules: len(sc.File.Faults), UsersShown: DashboardUsers,
		Switches: yamlOf(sc.File.Switches), SDK: yamlOf(sc.File.SDK),
		Journal: "/__sim/journal", Faults: "/__sim/faults", Webhooks: "/__sim/webhooks", Report: "/__sim/report",
	}
	for _, ch := range sc.Channels {
		sum, err := a.cards.Summary(ch.Name, DashboardUsers)
		if err != nil {
			return err
		}
		v.Channels = append(v.Channels, dashChannel{Name: ch.Name, ChannelID: ch.ChannelID, Campaigns: len(sc.CampaignsOf(ch.Name)), Summary: sum})
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

// livePanels fills the journal, faults, webhooks and report panels.
func (a *API) livePanels(ctx context.Context, v *dashView) error {
	v.RuntimeFaults = a.plane.Faults().List()
	all, err := a.hooks.List("")
	if err != nil {
		return err
	}
	for _, p := range all {
		if p.State == webhook.Pending {
			v.Pending = append(v.Pending, p)
		}
	}
	p, err := a.journal.Tail(ctx, DashboardWindow)
	if err != nil {
		return err
	}
	es := p.Entries
	v.JournalStored, v.JournalDropped, v.FindingsOver = p.Stored, p.Dropped, len(es)
	recent := es[max(0, len(es)-DashboardRecent):]
	for i := len(recent) - 1; i >= 0; i-- { // newest first
		v.Recent = append(v.Recent, recent[i])
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
