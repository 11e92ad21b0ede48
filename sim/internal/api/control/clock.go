package control

import (
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
		n, err := h.Webhooks.RunDue(c.Request().Context())
		if err != nil {
			return internal(err)
		}
		fired = n
	}
	return c.JSON(http.StatusOK, h.clockBody(fired))
}
