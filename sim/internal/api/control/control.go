// Package control serves the control API under /__sim/: health and the
// service certificate now; scenarios, faults, clock and webhooks later.
package control

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/journal"
)

// Deps is what the control API needs.
type Deps struct {
	ServiceCertPEM []byte
	Clock          clock.Clock
	Scenario       func() string
	// Journal serves /__sim/journal, /__sim/session and /__sim/report.
	Journal *journal.Journal
}

// Register adds the control routes to e.
func Register(e *echo.Echo, d Deps) {
	g := e.Group("/__sim")
	g.GET("/health", func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]any{
			"status":   "ok",
			"scenario": d.Scenario(),
			"time":     d.Clock.Now(),
		})
	})
	g.GET("/certs/service.pem", func(c echo.Context) error {
		return c.Blob(http.StatusOK, "application/x-pem-file", d.ServiceCertPEM)
	})
	if d.Journal != nil {
		registerJournal(g, d)
	}
}
