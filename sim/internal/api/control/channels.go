package control

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/controlplane"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

type channelInfo struct {
	Name       string `json:"name"`
	ChannelID  string `json:"channelId"`
	WebhookURL string `json:"webhookUrl,omitempty"`
	Scenario   string `json:"scenario"`
	Source     string `json:"source"` // "registered" or "scenario"
}

// ListChannels lists the registered channels and the active scenario's.
func (a *API) ListChannels(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]any{"channels": a.channels()})
}

// channels is every channel in force: those registered at run time, then
// the active scenario's, each with the scenario that governs it.
func (a *API) channels() []channelInfo {
	out := []channelInfo{}
	for _, r := range a.scenarios.Registered() {
		out = append(out, channelInfo{r.Name, r.ChannelID, r.WebhookURL, a.scenarios.ActiveFor(r.Name).Name, "registered"})
	}
	for _, ch := range a.scenarios.Active().Channels {
		out = append(out, channelInfo{ch.Name, ch.ChannelID, ch.WebhookURL, a.scenarios.ActiveFor(ch.Name).Name, "scenario"})
	}
	return out
}

// RegisterChannel registers (or re-registers, by name) a channel: a CI
// pipeline's own channel on a shared simulator.
func (a *API) RegisterChannel(c echo.Context) error {
	var spec controlplane.ChannelSpec
	if err := a.bind(c, "control.channel", &spec); err != nil {
		return err
	}
	spec, copied, err := a.plane.RegisterChannelLike(spec)
	if err != nil {
		return refused(err)
	}
	info := channelInfo{spec.Name, spec.ChannelID, spec.WebhookURL, a.scenarios.ActiveFor(spec.Name).Name, "registered"}
	if spec.Like == "" {
		return c.JSON(http.StatusCreated, info)
	}
	return c.JSON(http.StatusCreated, struct {
		channelInfo
		Like   string          `json:"like"`
		Copied scenario.Copied `json:"copied"`
		// Fresh is an isolated copy's own credentials, shown only here.
		Fresh *controlplane.Credentials `json:"credentials,omitempty"`
	}{info, spec.Like, copied, spec.Fresh})
}

// UnregisterChannel removes a channel registered at run time and all
// that is keyed by it (controlplane.UnregisterChannel); its journal
// entries too, unless ?keepJournal=true.
func (a *API) UnregisterChannel(c echo.Context) error {
	if err := strictQuery(c, []string{"keepJournal"}); err != nil {
		return badRequest(c, err.Error())
	}
	keep := c.QueryParam("keepJournal")
	if keep != "" && keep != "true" && keep != "false" {
		return badRequest(c, "keepJournal must be true or false, not "+strconv.Quote(keep))
	}
	name := c.Param("name")
	if err := a.plane.UnregisterChannel(name); err != nil {
		return refused(err)
	}
	if a.hooks != nil {
		a.hooks.Forget(name)
	}
	if keep != "true" {
		if err := a.journal.ResetChannel(c.Request().Context(), name); err != nil {
			return internal(err)
		}
	}
	return c.NoContent(http.StatusNoContent)
}
