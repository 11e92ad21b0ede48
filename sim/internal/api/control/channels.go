package control

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/controlplane"
	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

type channelInfo struct {
	Name       string `json:"name"`
	ChannelID  string `json:"channelId"`
	WebhookURL string `json:"webhookUrl,omitempty"`
	Scenario   string `json:"scenario"`
	Source     string `json:"source"` // "registered" or "scenario"
}

// channelCredentials is one channel as a service under test needs it:
// channelInfo and the credentials it calls with. The secKey is answered
// only where it is known in clear (a scenario's channel, or the call
// that set it): the store keeps a salted hash (docs/security.md).
type channelCredentials struct {
	channelInfo
	AppKey      string `json:"appKey,omitempty"`
	SecKey      string `json:"secKey,omitempty"`
	Certificate string `json:"certificate,omitempty"`
	KeyOrigin   string `json:"keyOrigin,omitempty"`
}

// credentialsOf is a registered spec's credentials; secKey is the one
// given in clear to the call, if any.
func (a *API) credentialsOf(spec controlplane.ChannelSpec, secKey string) channelCredentials {
	return channelCredentials{
		channelInfo: channelInfo{spec.Name, spec.ChannelID, spec.WebhookURL, a.scenarios.ActiveFor(spec.Name).Name, "registered"},
		AppKey:      spec.AppKey, SecKey: secKey, Certificate: spec.Certificate, KeyOrigin: spec.KeyOrigin,
	}
}

// GetChannel is GET /__sim/channels/{name}: one channel with its
// credentials (a scenario's channel with its public key as PEM).
func (a *API) GetChannel(c echo.Context) error {
	name := c.Param("name")
	spec, ok, err := a.o.Plane.RegisteredSpec(name)
	if err != nil {
		return internal(err)
	}
	if ok {
		return c.JSON(http.StatusOK, a.credentialsOf(spec, ""))
	}
	for _, ch := range a.scenarios.Active().Channels {
		if ch.Name != name {
			continue
		}
		cert, err := envelope.PublicKeyPEM(ch.PublicKey)
		if err != nil {
			return internal(err)
		}
		return c.JSON(http.StatusOK, channelCredentials{
			channelInfo: channelInfo{ch.Name, ch.ChannelID, ch.WebhookURL, a.scenarios.ActiveFor(ch.Name).Name, "scenario"},
			AppKey:      ch.AppKey, SecKey: ch.SecKey, Certificate: string(cert),
		})
	}
	return fail(http.StatusNotFound, "no channel named %q", name)
}

// PatchChannel is PATCH /__sim/channels/{name}: change some settings of
// a channel registered at run time (webhookUrl, certificate, appKey,
// secKey, keyOrigin), keeping its state, faults, clock and journal.
func (a *API) PatchChannel(c echo.Context) error {
	var patch controlplane.ChannelPatch
	if err := a.bind(c, "control.channel.patch", &patch); err != nil {
		return err
	}
	spec, err := a.o.Plane.PatchChannel(c.Param("name"), patch)
	if err != nil {
		return refused(err)
	}
	var secKey string
	if patch.SecKey != nil {
		secKey = *patch.SecKey
	}
	return c.JSON(http.StatusOK, a.credentialsOf(spec, secKey))
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
	given := spec.SecKey
	spec, copied, err := a.o.Plane.RegisterChannelLike(spec)
	if err != nil {
		return refused(err)
	}
	switch {
	case spec.Fresh != nil && spec.Fresh.SecKey != "":
		given = spec.Fresh.SecKey // an isolated copy's own, made here
	case given == "" && spec.Like != "" && !spec.Isolated:
		// A copy calls with its template's secKey, known in clear when
		// the template is a scenario's channel.
		if src, _, ok := a.scenarios.ByChannelName(spec.Like); ok {
			given = src.SecKey
		}
	}
	info := a.credentialsOf(spec, given)
	if spec.Like == "" {
		return c.JSON(http.StatusCreated, info)
	}
	return c.JSON(http.StatusCreated, struct {
		channelCredentials
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
	if err := a.o.Plane.UnregisterChannel(name); err != nil {
		return refused(err)
	}
	if a.o.Webhooks != nil {
		a.o.Webhooks.Forget(name)
	}
	a.o.Stories.Clear(name) // a story of no rule (a clock move) too: the channel's clock is gone
	if keep != "true" {
		if err := a.o.Journal.ResetChannel(c.Request().Context(), name); err != nil {
			return internal(err)
		}
	}
	return c.NoContent(http.StatusNoContent)
}
