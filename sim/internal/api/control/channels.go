package control

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/state"
)

type channelInfo struct {
	Name       string `json:"name"`
	ChannelID  string `json:"channelId"`
	WebhookURL string `json:"webhookUrl,omitempty"`
	Scenario   string `json:"scenario"`
	Source     string `json:"source"` // "registered" or "scenario"
}

func (h *handlers) channelRoutes(g *echo.Group) {
	g.GET("/channels", h.listChannels)
	g.POST("/channels", h.registerChannel)
	g.DELETE("/channels/:name", h.unregisterChannel)
}

func (h *handlers) listChannels(c echo.Context) error {
	out := []channelInfo{}
	for _, r := range h.Scenarios.Registered() {
		out = append(out, channelInfo{r.Name, r.ChannelID, r.WebhookURL, h.Scenarios.ActiveFor(r.Name).Name, "registered"})
	}
	for _, ch := range h.Scenarios.Active().Channels {
		out = append(out, channelInfo{ch.Name, ch.ChannelID, ch.WebhookURL, h.Scenarios.ActiveFor(ch.Name).Name, "scenario"})
	}
	return c.JSON(http.StatusOK, map[string]any{"channels": out})
}

// registerChannel registers (or re-registers, by name) a channel: a CI
// pipeline's own channel on a shared simulator.
func (h *handlers) registerChannel(c echo.Context) error {
	var spec scenario.ChannelSpec
	if err := h.bind(c, "control.channel", &spec); err != nil {
		return err
	}
	if spec.ChannelID == "" {
		spec.ChannelID = spec.Name
	}
	reg, err := spec.Compile()
	if err != nil {
		return fail(http.StatusBadRequest, "%v", err)
	}
	if err := h.Scenarios.Register(reg); err != nil {
		return fail(http.StatusConflict, "%v", err)
	}
	if err := h.Store.PutConfig(state.KindChannel, spec.Name, spec); err != nil {
		return internal(err)
	}
	return c.JSON(http.StatusCreated, channelInfo{spec.Name, spec.ChannelID, spec.WebhookURL, h.Scenarios.ActiveFor(spec.Name).Name, "registered"})
}

func (h *handlers) unregisterChannel(c echo.Context) error {
	name := c.Param("name")
	if !h.Scenarios.Unregister(name) {
		return fail(http.StatusNotFound, "no channel named %q was registered at run time", name)
	}
	if err := h.Store.DeleteConfig(state.KindChannel, name); err != nil {
		return internal(err)
	}
	return c.NoContent(http.StatusNoContent)
}
