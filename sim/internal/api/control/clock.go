package control

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// clockBody is the clock of channel ("" the global one) as answered.
func (a *API) clockBody(channel string, fired int) (map[string]any, error) {
	v := a.plane.ClockView()
	var out map[string]any
	if channel != "" {
		cv, own, err := a.plane.ChannelClockView(channel)
		if err != nil {
			return nil, refused(err)
		}
		v = cv
		out = map[string]any{"channel": channel, "own": own}
	} else {
		out = map[string]any{}
	}
	out["now"], out["mode"], out["offset"] = v.Now, v.Mode, v.Offset.String()
	if fired >= 0 {
		out["firedWebhooks"] = fired
	}
	return out, nil
}

// ShowClock tells the simulated time and how the clock runs
// (?channel=X: that channel's).
func (a *API) ShowClock(c echo.Context) error {
	body, err := a.clockBody(c.QueryParam("channel"), -1)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, body)
}

// SetClock sets the mode (real, offset, frozen) and/or the time, of the
// global clock or, with "channel", of that channel's own.
func (a *API) SetClock(c echo.Context) error {
	var req struct {
		Mode    string    `json:"mode"`
		Time    time.Time `json:"time"`
		By      string    `json:"by"`
		Channel string    `json:"channel"`
	}
	if err := a.bind(c, "control.clock", &req); err != nil {
		return err
	}
	if req.By != "" {
		return fail(http.StatusBadRequest, "by belongs to POST /__sim/clock/advance")
	}
	var err error
	if req.Channel != "" {
		err = a.plane.SetChannelClock(req.Channel, req.Mode, req.Time)
	} else {
		err = a.plane.SetClock(req.Mode, req.Time)
	}
	if err != nil {
		return refused(err)
	}
	return a.afterClockMove(c, req.Channel)
}

// AdvanceClock moves the clock by {"by": "90s"} (with "channel", that
// channel's own clock).
func (a *API) AdvanceClock(c echo.Context) error {
	var req struct {
		By      string `json:"by"`
		Channel string `json:"channel"`
	}
	if err := a.bind(c, "control.clock", &req); err != nil {
		return err
	}
	d, err := time.ParseDuration(req.By)
	if err != nil || req.By == "" {
		return fail(http.StatusBadRequest, "by %q is not a duration like 90s, 30m, 2h", req.By)
	}
	if req.Channel != "" {
		err = a.plane.AdvanceChannelClock(req.Channel, d)
	} else {
		err = a.plane.AdvanceClock(d)
	}
	if err != nil {
		return refused(err)
	}
	return a.afterClockMove(c, req.Channel)
}

// DropClock is DELETE /__sim/clock?channel=X: X follows the global clock again.
func (a *API) DropClock(c echo.Context) error {
	ch := c.QueryParam("channel")
	if ch == "" {
		return fail(http.StatusBadRequest, "channel: give the channel whose own clock to drop (?channel=X)")
	}
	if err := a.plane.DropChannelClock(ch); err != nil {
		return refused(err)
	}
	return a.afterClockMove(c, ch)
}

// afterClockMove dispatches the webhook pushes that became due and waits
// a bounded time for their attempts, so a test that moves the clock sees
// quick receivers' deliveries and a silent receiver cannot hold it.
func (a *API) afterClockMove(c echo.Context, channel string) error {
	fired, err := a.hooks.Fire(a.wait)
	if err != nil {
		return internal(err)
	}
	body, err := a.clockBody(channel, fired)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, body)
}
