package control

import (
	_ "embed"
	"html/template"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"go.yaml.in/yaml/v3"

	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/state"
)

//go:embed dashboard.html
var dashboardHTML string

var dashboardTmpl = template.Must(template.New("dashboard").Parse(dashboardHTML))

// DashboardDeps is what the dashboard reads.
type DashboardDeps struct {
	Active func() *scenario.Scenario
	Cards  *cards.Service
	Clock  clock.Clock
}

// DashboardUsers is how many users per channel the dashboard lists.
const DashboardUsers = 200

type dashChannel struct {
	Name, ChannelID string
	Campaigns       int
	Summary         state.CardSummary
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
}

// RegisterDashboard adds the read-only dashboard, GET /__sim/ and
// GET /__sim/dashboard: the active scenario and its switches, tracking
// counts and cards per user of each channel. Journal, faults, pending
// webhooks and the conformance report are slots that link to their
// control calls (built in other areas).
func registerDashboard(g *echo.Group, d DashboardDeps) {
	h := func(c echo.Context) error {
		sc := d.Active()
		v := dashView{
			Now: d.Clock.Now().In(sc.Location).Format("2006-01-02 15:04:05.000 -07:00"), Scenario: sc.Name,
			Description: sc.Description, Source: sc.Source, FaultRules: len(sc.File.Faults), UsersShown: DashboardUsers,
			Switches: yamlOf(sc.File.Switches), SDK: yamlOf(sc.File.SDK),
			Journal: "/__sim/journal", Faults: "/__sim/faults", Webhooks: "/__sim/webhooks", Report: "/__sim/report",
		}
		for _, ch := range sc.Channels {
			sum, err := d.Cards.Summary(ch.Name, DashboardUsers)
			if err != nil {
				return err
			}
			v.Channels = append(v.Channels, dashChannel{Name: ch.Name, ChannelID: ch.ChannelID, Campaigns: len(sc.CampaignsOf(ch.Name)), Summary: sum})
		}
		var b strings.Builder
		if err := dashboardTmpl.Execute(&b, v); err != nil {
			return err
		}
		c.Response().Header().Set("Cache-Control", "no-store")
		return c.HTML(http.StatusOK, b.String())
	}
	g.GET("/", h)
	g.GET("/dashboard", h)
}

func yamlOf(v any) string {
	raw, err := yaml.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(raw)
}
