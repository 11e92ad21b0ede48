package control

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/webhook"
)

// ScheduleWebhook stores the push(es) and, when due now, dispatches them
// to the delivery workers, waiting a bounded time for their first
// attempt: the answer shows it if the receiver answered in time, else
// the push is still pending (GET /__sim/webhooks/{id} shows it later).
// "due" says how many pushes (of any channel) became due.
func (a *API) ScheduleWebhook(c echo.Context) error {
	var req webhook.Request
	if err := a.bind(c, "control.webhook", &req); err != nil {
		return err
	}
	pushes, err := a.hooks.Schedule(req)
	if err != nil {
		return refused(err)
	}
	due, err := a.hooks.Fire(a.wait)
	if err != nil {
		return internal(err)
	}
	out := make([]webhook.Push, 0, len(pushes))
	for _, p := range pushes {
		if now, ok, _ := a.hooks.Lookup(p.Channel, p.ID); ok {
			p = now
		}
		out = append(out, p)
	}
	return c.JSON(http.StatusCreated, map[string]any{"pushes": out, "due": due})
}

// ListWebhooks lists the pushes (of ?channel=X).
func (a *API) ListWebhooks(c echo.Context) error {
	ch := c.QueryParam("channel")
	if ch != "" {
		if _, _, ok := a.scenarios.ByChannelName(ch); !ok {
			return fail(http.StatusNotFound, "no channel named %q", ch)
		}
	}
	ps, err := a.hooks.List(ch)
	if err != nil {
		return internal(err)
	}
	return c.JSON(http.StatusOK, map[string]any{"pushes": ps})
}

// GetWebhook is one push with its attempts.
func (a *API) GetWebhook(c echo.Context) error {
	p, ok, err := a.hooks.Get(c.Param("id"))
	if err != nil {
		return internal(err)
	}
	if !ok {
		return fail(http.StatusNotFound, "no webhook push %q", c.Param("id"))
	}
	return c.JSON(http.StatusOK, p)
}

// RunWebhooks fires every due push now (the background loop does this
// every tick anyway).
func (a *API) RunWebhooks(c echo.Context) error {
	n, err := a.hooks.Fire(a.wait)
	if err != nil {
		return internal(err)
	}
	return c.JSON(http.StatusOK, map[string]any{"fired": n})
}
