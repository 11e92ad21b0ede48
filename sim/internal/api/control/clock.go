package control

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/webhook"
)

// clockBody is the clock of channel ("" the global one) as answered.
func (a *API) clockBody(channel string, fired *webhook.Batch, became []webhook.DueState) (map[string]any, error) {
	v := a.o.Plane.ClockView()
	var out map[string]any
	if channel != "" {
		cv, own, err := a.o.Plane.ChannelClockView(channel)
		if err != nil {
			return nil, refused(err)
		}
		v = cv
		out = map[string]any{"channel": channel, "own": own}
	} else {
		out = map[string]any{}
	}
	// In the zone of the scenario governing the channel, as its answers' times are.
	sc := a.scenarios.Active()
	if channel != "" {
		sc = a.scenarios.ActiveFor(channel)
	}
	out["now"], out["mode"], out["offset"] = v.Now.In(sc.Location), v.Mode, v.Offset.String()
	if fired != nil {
		out["firedWebhooks"], out["becameDue"] = len(fired.Pushes), became
	}
	return out, nil
}

// ShowClock tells the simulated time and how the clock runs
// (?channel=X: that channel's).
func (a *API) ShowClock(c echo.Context) error {
	body, err := a.clockBody(c.QueryParam("channel"), nil, nil)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, body)
}

// SetClock sets the mode (real, offset, frozen) and/or the time, of the
// global clock or, with "channel", of that channel's own.
func (a *API) SetClock(c echo.Context) error {
	type request struct {
		Mode    string     `json:"mode"`
		Time    *time.Time `json:"time"` // nil: absent (the zero time is a time, refused)
		By      string     `json:"by"`
		Channel string     `json:"channel"`
	}
	return moveClock(a, c, func(req *request) (string, error) {
		if req.By != "" {
			return "", fail(http.StatusBadRequest, "by belongs to POST /__sim/clock/advance")
		}
		var err error
		if req.Channel != "" {
			err = a.o.Plane.SetChannelClock(req.Channel, req.Mode, req.Time)
		} else {
			err = a.o.Plane.SetClock(req.Mode, req.Time)
		}
		if err != nil {
			return "", refused(err)
		}
		return req.Channel, nil
	})
}

// AdvanceClock moves the clock by {"by": "90s"} (with "channel", that
// channel's own clock).
func (a *API) AdvanceClock(c echo.Context) error {
	type request struct {
		By      string `json:"by"`
		Channel string `json:"channel"`
	}
	return moveClock(a, c, func(req *request) (string, error) {
		d, err := time.ParseDuration(req.By)
		if err != nil || req.By == "" {
			return "", fail(http.StatusBadRequest, "by %q is not a duration like 90s, 30m, 2h", req.By)
		}
		if req.Channel != "" {
			err = a.o.Plane.AdvanceChannelClock(req.Channel, d)
		} else {
			err = a.o.Plane.AdvanceClock(d)
		}
		if err != nil {
			return "", refused(err)
		}
		return req.Channel, nil
	})
}

// moveClock is what every clock move shares: ?wait read, the body bound
// to R, move made (it checks R, then moves the named channel's own clock
// or, for "", the global one; its error is the answer) and the answer
// with the webhooks it made due.
func moveClock[R any](a *API, c echo.Context, move func(*R) (channel string, err error)) error {
	wait, err := waitParam(c)
	if err != nil {
		return err
	}
	var req R
	if err := a.bind(c, "control.clock", &req); err != nil {
		return err
	}
	mark := a.o.Webhooks.Mark()
	channel, err := move(&req)
	if err != nil {
		return err
	}
	return a.afterClockMove(c, channel, mark, wait)
}

// DropClock is DELETE /__sim/clock?channel=X: X follows the global clock again.
func (a *API) DropClock(c echo.Context) error {
	wait, err := waitParam(c, "channel")
	if err != nil {
		return err
	}
	ch := c.QueryParam("channel")
	if ch == "" {
		return fail(http.StatusBadRequest, "channel: give the channel whose own clock to drop (?channel=X)")
	}
	mark := a.o.Webhooks.Mark()
	if err := a.o.Plane.DropChannelClock(ch); err != nil {
		return refused(err)
	}
	return a.afterClockMove(c, ch, mark, wait)
}

// afterClockMove hands the webhook pushes that became due (since mark,
// taken before the move) to the delivery workers and answers at once (firedWebhooks counts them,
// becameDue tells their state), or after ?wait for their attempts: a
// silent receiver never holds a clock move.
func (a *API) afterClockMove(c echo.Context, channel string, mark uint64, wait time.Duration) error {
	ctx, cancel := waitContext(c, wait)
	defer cancel()
	b, err := a.fire(ctx, mark, wait > 0)
	if err != nil {
		return err
	}
	became, err := a.becameDue(b)
	if err != nil {
		return err
	}
	body, err := a.clockBody(channel, &b, became)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, body)
}
