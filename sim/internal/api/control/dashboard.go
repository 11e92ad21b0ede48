package control

import (
	_ "embed"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/dashboard"
	"github.com/rewardsim/rewardsim/sim/internal/webhook"
)

//go:embed dashboard.html
var dashboardHTML string

// Parsed on first use, not at start-up (init time is start-up time).
var dashboardTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("dashboard").Funcs(template.FuncMap{
		"prev":   func(seq uint64) uint64 { return seq - 1 },
		"has":    func(list []string, s string) bool { return slices.Contains(list, s) },
		"states": pushStates,
	}).Parse(dashboardHTML))
})

//go:embed dashboard_login.html
var loginHTML string

// LoginGate serves the token prompt (a fixed page: no CSRF token before
// a session) in place of the dashboard when the
// simulator has a control token and the browser no session yet.
func (a *API) LoginGate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if a.authorized(c.Request()) {
			return next(c)
		}
		c.Response().Header().Set("Cache-Control", "no-store")
		return c.HTML(http.StatusUnauthorized, loginHTML)
	}
}

// Dashboard renders the overview (GET /__sim/ and
// /__sim/dashboard) that package dashboard builds, each panel linking to
// its control call.
func (a *API) Dashboard(c echo.Context) error {
	var channels []dashboard.ChannelRef
	for _, ch := range a.channels() {
		channels = append(channels, dashboard.ChannelRef{Name: ch.Name, ChannelID: ch.ChannelID, Source: ch.Source})
	}
	src := dashboard.Sources{Plane: a.o.Plane, Scenarios: a.scenarios, Hooks: a.o.Webhooks, Journal: a.o.Journal,
		Cards: a.o.Cards, Coupons: a.o.Coupons, Deadline: a.o.WebhookDeadline, Stories: a.o.Stories}
	v, err := dashboard.Build(c.Request().Context(), src, channels, c.QueryParams())
	if err != nil {
		return err
	}
	v.CSRF = a.pageCSRF(c.Request())
	v.LastSweep = a.o.Sweeps.summary()
	var b strings.Builder
	if err := dashboardTmpl().Execute(&b, v); err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.HTML(http.StatusOK, b.String())
}

// pushStates says the states of a group of pushes in a few words:
// "delivered ×4, failed" rather than each push's.
func pushStates(ps []webhook.Push) string {
	var order []string
	n := map[string]int{}
	for _, p := range ps {
		st := string(p.State)
		if n[st] == 0 {
			order = append(order, st)
		}
		n[st]++
	}
	out := make([]string, 0, len(order))
	for _, st := range order {
		if n[st] > 1 {
			st = fmt.Sprintf("%s ×%d", st, n[st])
		}
		out = append(out, st)
	}
	return strings.Join(out, ", ")
}
