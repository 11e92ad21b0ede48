package control

import (
	_ "embed"
	"html/template"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/dashboard"
)

//go:embed dashboard.html
var dashboardHTML string

var dashboardTmpl = template.Must(template.New("dashboard").Funcs(template.FuncMap{
	"prev": func(seq uint64) uint64 { return seq - 1 },
}).Parse(dashboardHTML))

// Dashboard renders the read-only overview (GET /__sim/ and
// /__sim/dashboard) that package dashboard builds, each panel linking to
// its control call.
func (a *API) Dashboard(c echo.Context) error {
	var channels []dashboard.ChannelRef
	for _, ch := range a.channels() {
		channels = append(channels, dashboard.ChannelRef{Name: ch.Name, ChannelID: ch.ChannelID, Source: ch.Source})
	}
	src := dashboard.Sources{Plane: a.plane, Scenarios: a.scenarios, Hooks: a.hooks, Journal: a.journal,
		Cards: a.cards, Coupons: a.coupons, Deadline: a.deadline}
	v, err := dashboard.Build(c.Request().Context(), src, channels, c.QueryParams())
	if err != nil {
		return err
	}
	var b strings.Builder
	if err := dashboardTmpl.Execute(&b, v); err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.HTML(http.StatusOK, b.String())
}
