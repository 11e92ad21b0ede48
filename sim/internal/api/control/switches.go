package control

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// switchesBody is the answer of the switch calls.
func (a *API) switchesBody(channel string) map[string]any {
	out := map[string]any{"scenario": a.scenarios.Underlying(channel).Name, "switches": a.scenarios.SwitchStates(channel)}
	if channel != "" {
		out["channel"] = channel
	}
	return out
}

// switchChannel is ?channel=X, checked ("" every channel).
func (a *API) switchChannel(c echo.Context) (string, error) {
	if err := strictQuery(c, []string{"channel"}); err != nil {
		return "", fail(http.StatusBadRequest, "%s", err.Error())
	}
	ch := c.QueryParam("channel")
	if _, _, ok := a.scenarios.ByChannelName(ch); ch != "" && !ok {
		return "", fail(http.StatusNotFound, "no channel named %q", ch)
	}
	return ch, nil
}

// ListSwitches is GET /__sim/switches?channel=X.
func (a *API) ListSwitches(c echo.Context) error {
	ch, err := a.switchChannel(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, a.switchesBody(ch))
}

// SetSwitch is POST /__sim/switches {name, value, channel}: one switch
// overridden for the channel (absent: every channel), kept across a
// restart; the answer is the switch as it now is.
func (a *API) SetSwitch(c echo.Context) error {
	var req struct {
		Name    string          `json:"name"`
		Value   json.RawMessage `json:"value"`
		Channel string          `json:"channel"`
	}
	if err := a.bind(c, "control.switch", &req); err != nil {
		return err
	}
	value := strings.Trim(string(req.Value), `"`) // a string, or an integer or boolean as written
	d, err := a.o.Plane.SetSwitch(req.Channel, req.Name, value)
	if err != nil {
		return refused(err)
	}
	for _, r := range a.scenarios.SwitchStates(req.Channel) {
		if r.Name == d.Name {
			return c.JSON(http.StatusOK, r)
		}
	}
	return fail(http.StatusNotFound, "no switch named %q", req.Name)
}

// ResetSwitches is DELETE /__sim/switches[/{name}]?channel=X: the
// channel's override of that switch (or of every one) dropped, so the
// governing scenario's value is in force again.
func (a *API) ResetSwitches(c echo.Context) error {
	ch, err := a.switchChannel(c)
	if err != nil {
		return err
	}
	reset, err := a.o.Plane.ResetSwitches(ch, c.Param("name"))
	if err != nil {
		return refused(err)
	}
	body := a.switchesBody(ch)
	body["reset"] = reset
	return c.JSON(http.StatusOK, body)
}
