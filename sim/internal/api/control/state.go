package control

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
)

// ResetState wipes one channel's state ({"channel": "X"}) or everyone's ({}).
func (a *API) ResetState(c echo.Context) error {
	var req struct {
		Channel string `json:"channel"`
	}
	if err := a.bind(c, "control.activate", &req); err != nil {
		return err
	}
	if err := a.o.Plane.Reset(req.Channel); err != nil {
		return refused(err)
	}
	scope := req.Channel
	if scope == "" {
		scope = "*"
	}
	return c.JSON(http.StatusOK, map[string]any{"reset": scope})
}

// Reader reads one kind of a user's state for ReadUser; other areas
// (cards, coupons) plug theirs in by name.
type Reader struct {
	Name string
	Read func(channel, virtualID string) (any, error)
}

// ReadUser returns what every Reader knows of one user.
func (a *API) ReadUser(c echo.Context) error {
	ch, vid := c.Param("channel"), c.Param("virtualId")
	_, sc, ok := a.scenarios.ByChannelName(ch)
	if !ok {
		return fail(http.StatusNotFound, "no channel named %q", ch)
	}
	// In the channel's scenario's zone, as its answers' times are.
	out := map[string]any{"channel": ch, "virtualId": vid, "now": clock.NowFor(a.o.Plane.Clock(), ch).In(sc.Location)}
	for _, r := range a.o.Readers {
		v, err := r.Read(ch, vid)
		if err != nil {
			return internal(err)
		}
		out[r.Name] = v
	}
	return c.JSON(http.StatusOK, out)
}
