package control

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

func (a *API) clockBody(fired int) map[string]any {
	v := a.plane.ClockView()
	out := map[string]any{"now": v.Now, "mode": v.Mode, "offset": v.Offset.String()}
	if fired >= 0 {
		out["firedWebhooks"] = fired
	}
	return out
}

// ShowClock tells the simulated time and how the clock runs.
func (a *API) ShowClock(c echo.Context) error { return c.JSON(http.StatusOK, a.clockBody(-1)) }

// SetClock sets the mode (real, offset, frozen) and/or the time.
func (a *API) SetClock(c echo.Context) error {
	var req struct {
		Mode string    `json:"mode"`
		Time time.Time `json:"time"`
		By   string    `json:"by"`
	}
	if err := a.bind(c, "control.clock", &req); err != nil {
		return err
	}
	if req.By != "" {
		return fail(http.StatusBadRequest, "by belongs to POST /__sim/clock/advance")
	}
	if err := a.plane.SetClock(req.Mode, req.Time); err != nil {
		return refused(err)
	}
	return a.afterClockMove(c)
}

// AdvanceClock moves the clock by {"by": "90s"}.
func (a *API) AdvanceClock(c echo.Context) error {
	var req struct {
		By string `json:"by"`
	}
	if err := a.bind(c, "control.clock", &req); err != nil {
		return err
	}
	d, err := time.ParseDuration(req.By)
	if err != nil || req.By == "" {
		return fail(http.StatusBadRequest, "by %q is not a duration like 90s, 30m, 2h", req.By)
	}
	if err := a.plane.AdvanceClock(d); err != nil {
		return refused(err)
	}
	return a.afterClockMove(c)
}

// afterClockMove dispatches the webhook pushes that became due and waits
// a bounded time for their attempts, so a test that moves the clock sees
// quick receivers' deliveries and a silent receiver cannot hold it.
func (a *API) afterClockMove(c echo.Context) error {
	fired, err := a.hooks.Fire(a.wait)
	if err != nil {
		return internal(err)
	}
	return c.JSON(http.StatusOK, a.clockBody(fired))
}
