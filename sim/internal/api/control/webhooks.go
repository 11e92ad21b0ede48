package control

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/webhook"
)

// Scheduling a push, moving the clock and POST /__sim/webhooks/run hand
// what became due to the delivery workers and answer at once (issue 23):
// a receiver that never answers cannot hold a control call. A caller
// that wants the attempts in the answer asks for a bounded ?wait.

// MaxWait bounds ?wait: it holds a control connection that long.
const MaxWait = 30 * time.Second

// maxBecameDue bounds the pushes listed in an answer's becameDue; the
// count beside it (due, firedWebhooks, fired) counts them all.
const maxBecameDue = 100

// waitParam reads ?wait (a duration like 2s or 500ms, 0 to MaxWait; absent
// is 0) after refusing a query parameter not in known.
func waitParam(c echo.Context, known ...string) (time.Duration, error) {
	if err := strictQuery(c, append(known, "wait")); err != nil {
		return 0, fail(http.StatusBadRequest, "%s", err.Error())
	}
	v := c.QueryParam("wait")
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || d > MaxWait {
		return 0, fail(http.StatusBadRequest, "wait %q is not a duration from 0s to %s, like 2s or 500ms", v, MaxWait)
	}
	return d, nil
}

// waitContext is the request's context bounded by wait: a call waits
// at most that long in all.
func waitContext(c echo.Context, wait time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.Request().Context(), wait)
}

// fire dispatches every due push and, if wait, waits (until ctx ends)
// for their attempts and those of the pushes dispatched since mark (by
// the background tick, between the call's change and its dispatch).
func (a *API) fire(ctx context.Context, mark uint64, wait bool) (webhook.Batch, error) {
	b, err := a.o.Webhooks.Since(mark)
	if err != nil {
		return b, internal(err)
	}
	if wait {
		b.Wait(ctx)
	}
	return b, nil
}

// becameDue is the state now of (the first maxBecameDue of) what b
// dispatched.
func (a *API) becameDue(b webhook.Batch) ([]webhook.DueState, error) {
	states, err := a.o.Webhooks.States(b.Pushes[:min(len(b.Pushes), maxBecameDue)])
	if err != nil {
		return nil, internal(err)
	}
	return states, nil
}

// ScheduleWebhook stores the push(es) and, when due now, hands them to
// the delivery workers and answers at once: the pushes are shown as
// stored (pending, no attempt yet) and becameDue tells the state of
// what became due (due, delivering, or its state once attempted).
// ?wait=2s waits up to that long in all for those attempts and for each
// new push due now to settle (GET /__sim/webhooks/{id}?wait= for later).
// "due" counts the pushes (of any channel) that became due.
func (a *API) ScheduleWebhook(c echo.Context) error {
	wait, err := waitParam(c)
	if err != nil {
		return err
	}
	var req webhook.Request
	if err := a.bind(c, "control.webhook", &req); err != nil {
		return err
	}
	mark := a.o.Webhooks.Mark()
	pushes, err := a.o.Webhooks.Schedule(req)
	if err != nil {
		return refused(err)
	}
	ctx, cancel := waitContext(c, wait)
	defer cancel()
	b, err := a.fire(ctx, mark, wait > 0)
	if err != nil {
		return err
	}
	out := make([]webhook.Push, 0, len(pushes))
	for _, p := range pushes {
		if wait > 0 {
			// Settle, not the batch alone: a tick may have dispatched
			// the push before this call did.
			if now, ok, _ := a.o.Webhooks.Settle(ctx, p.Channel, p.ID); ok {
				p = now
			}
		} else if now, ok, _ := a.o.Webhooks.Lookup(p.Channel, p.ID); ok {
			p = now
		}
		out = append(out, p)
	}
	became, err := a.becameDue(b)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"pushes": out, "due": len(b.Pushes), "becameDue": became})
}

// ListWebhooks lists the pushes (of ?channel=X).
func (a *API) ListWebhooks(c echo.Context) error {
	ch := c.QueryParam("channel")
	if ch != "" {
		if _, _, ok := a.scenarios.ByChannelName(ch); !ok {
			return fail(http.StatusNotFound, "no channel named %q", ch)
		}
	}
	ps, err := a.o.Webhooks.List(ch)
	if err != nil {
		return internal(err)
	}
	return c.JSON(http.StatusOK, map[string]any{"pushes": ps})
}

// GetWebhook is one push with its attempts. ?wait=5s waits up to that
// long for it to settle: delivered, failed, or pending with its next
// attempt due later (not due now, not being attempted).
func (a *API) GetWebhook(c echo.Context) error {
	wait, err := waitParam(c)
	if err != nil {
		return err
	}
	p, ok, err := a.o.Webhooks.Get(c.Param("id"))
	if err == nil && ok && wait > 0 {
		ctx, cancel := waitContext(c, wait)
		p, ok, err = a.o.Webhooks.Settle(ctx, p.Channel, p.ID)
		cancel()
	}
	if err != nil {
		return internal(err)
	}
	if !ok {
		return fail(http.StatusNotFound, "no webhook push %q", c.Param("id"))
	}
	return c.JSON(http.StatusOK, p)
}

// RunWebhooks fires every due push now (the background loop does this
// every tick anyway) and answers at once, or after ?wait for their
// attempts.
func (a *API) RunWebhooks(c echo.Context) error {
	wait, err := waitParam(c)
	if err != nil {
		return err
	}
	ctx, cancel := waitContext(c, wait)
	defer cancel()
	b, err := a.fire(ctx, a.o.Webhooks.Mark(), wait > 0)
	if err != nil {
		return err
	}
	became, err := a.becameDue(b)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"fired": len(b.Pushes), "becameDue": became})
}
