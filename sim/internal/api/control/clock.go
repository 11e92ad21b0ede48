package control

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
)

func (h *handlers) clockRoutes(g *echo.Group) {
	g.GET("/clock", h.showClock)
	g.POST("/clock", h.setClock)
	g.POST("/clock/advance", h.advanceClock)
}

func (h *handlers) clockBody(fired int) map[string]any {
	out := map[string]any{"now": h.Clock.Now(), "mode": clock.ModeFrozen, "offset": "0s"}
	if m, ok := h.Clock.(clock.Moder); ok {
		st := m.Mode()
		out["mode"], out["offset"] = st.Mode, st.Offset.String()
	}
	if _, ok := h.Clock.(clock.Controller); !ok {
		out["mode"] = clock.ModeReal
	}
	if fired >= 0 {
		out["firedWebhooks"] = fired
	}
	return out
}

func (h *handlers) showClock(c echo.Context) error { return c.JSON(http.StatusOK, h.clockBody(-1)) }

func (h *handlers) controller() (clock.Controller, error) {
	ctl, ok := h.Clock.(clock.Controller)
	if !ok {
		return nil, fail(http.StatusConflict, "this simulator runs on a clock that cannot be moved")
	}
	return ctl, nil
}

// setClock sets the mode (real, offset, frozen) and/or the time.
// The simulated time stays where every part can represent it: the journal
// keeps Unix nanoseconds (years 1678 to 2262) and JSON times need years
// 0 to 9999. Outside, answers and the saved clock would break.
var clockMin, clockMax = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC)

const clockRange = "1970-01-01 to 2262-01-01 (UTC)"

func inClockRange(t time.Time) bool { return !t.Before(clockMin) && t.Before(clockMax) }

func (h *handlers) setClock(c echo.Context) error {
	var req struct {
		Mode string    `json:"mode"`
		Time time.Time `json:"time"`
		By   string    `json:"by"`
	}
	if err := h.bind(c, "control.clock", &req); err != nil {
		return err
	}
	if req.By != "" {
		return fail(http.StatusBadRequest, "by belongs to POST /__sim/clock/advance")
	}
	if !req.Time.IsZero() && !inClockRange(req.Time) {
		return fail(http.StatusBadRequest, "time %s is outside %s", req.Time.Format(time.RFC3339), clockRange)
	}
	ctl, err := h.controller()
	if err != nil {
		return err
	}
	if req.Mode != "" {
		m, ok := ctl.(clock.Moder)
		if !ok {
			if req.Mode != clock.ModeFrozen {
				return fail(http.StatusConflict, "this simulator runs on a test clock that is always frozen")
			}
		} else if err := m.SetMode(req.Mode); err != nil {
			return fail(http.StatusBadRequest, "%v", err)
		}
	}
	if !req.Time.IsZero() {
		ctl.Set(req.Time)
	}
	return h.afterClockMove(c)
}

func (h *handlers) advanceClock(c echo.Context) error {
	var req struct {
		By string `json:"by"`
	}
	if err := h.bind(c, "control.clock", &req); err != nil {
		return err
	}
	d, err := time.ParseDuration(req.By)
	if err != nil || req.By == "" {
		return fail(http.StatusBadRequest, "by %q is not a duration like 90s, 30m, 2h", req.By)
	}
	if to := h.Clock.Now().Add(d); !inClockRange(to) {
		return fail(http.StatusBadRequest, "advancing by %s would move the clock outside %s", req.By, clockRange)
	}
	ctl, err := h.controller()
	if err != nil {
		return err
	}
	ctl.Advance(d)
	return h.afterClockMove(c)
}

// afterClockMove fires the webhook pushes that became due before answering,
// so a test that moves the clock sees them delivered.
func (h *handlers) afterClockMove(c echo.Context) error {
	fired := 0
	if h.Webhooks != nil {
		n, err := h.Webhooks.RunDue(context.WithoutCancel(c.Request().Context()))
		if err != nil {
			return internal(err)
		}
		fired = n
	}
	return c.JSON(http.StatusOK, h.clockBody(fired))
}
