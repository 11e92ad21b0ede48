package control

import (
	"context"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/webhook"
)

func (h *handlers) webhookRoutes(g *echo.Group) {
	g.POST("/webhooks", h.scheduleWebhook)
	g.GET("/webhooks", h.listWebhooks)
	g.GET("/webhooks/:id", h.getWebhook)
	g.POST("/webhooks/run", h.runWebhooks)
}

// scheduleWebhook stores the push(es) and, when due now, delivers them
// before answering: the answer shows the first attempt.
func (h *handlers) scheduleWebhook(c echo.Context) error {
	var req webhook.Request
	if err := h.bind(c, "control.webhook", &req); err != nil {
		return err
	}
	pushes, err := h.Webhooks.Schedule(req)
	var bad *webhook.BadRequest
	if errors.As(err, &bad) {
		return fail(bad.Status, "%s", bad.Msg)
	}
	if err != nil {
		return internal(err)
	}
	if _, err := h.Webhooks.RunDue(context.WithoutCancel(c.Request().Context())); err != nil {
		return internal(err)
	}
	out := make([]webhook.Push, 0, len(pushes))
	for _, p := range pushes {
		if now, ok, _ := h.Webhooks.Get(p.ID); ok {
			p = now
		}
		out = append(out, p)
	}
	return c.JSON(http.StatusCreated, map[string]any{"pushes": out})
}

func (h *handlers) listWebhooks(c echo.Context) error {
	ch := c.QueryParam("channel")
	if ch != "" {
		if _, _, ok := h.Scenarios.ByChannelName(ch); !ok {
			return fail(http.StatusNotFound, "no channel named %q", ch)
		}
	}
	ps, err := h.Webhooks.List(ch)
	if err != nil {
		return internal(err)
	}
	return c.JSON(http.StatusOK, map[string]any{"pushes": ps})
}

func (h *handlers) getWebhook(c echo.Context) error {
	p, ok, err := h.Webhooks.Get(c.Param("id"))
	if err != nil {
		return internal(err)
	}
	if !ok {
		return fail(http.StatusNotFound, "no webhook push %q", c.Param("id"))
	}
	return c.JSON(http.StatusOK, p)
}

// runWebhooks fires every due push now (the background loop does this
// every tick anyway).
func (h *handlers) runWebhooks(c echo.Context) error {
	n, err := h.Webhooks.RunDue(context.WithoutCancel(c.Request().Context()))
	if err != nil {
		return internal(err)
	}
	return c.JSON(http.StatusOK, map[string]any{"fired": n})
}
