package control

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

func (h *handlers) stateRoutes(g *echo.Group) {
	g.POST("/state/reset", h.reset)
	g.GET("/state/users/:channel/:virtualId", h.readUser)
}

// reset wipes one channel's state ({"channel": "X"}) or everyone's ({}).
func (h *handlers) reset(c echo.Context) error {
	var req struct {
		Channel string `json:"channel"`
	}
	if err := h.bind(c, "control.activate", &req); err != nil {
		return err
	}
	if req.Channel != "" {
		if _, _, ok := h.Scenarios.ByChannelName(req.Channel); !ok {
			return fail(http.StatusNotFound, "no channel named %q", req.Channel)
		}
	}
	if err := h.Store.ResetChannel(req.Channel); err != nil {
		return internal(err)
	}
	scope := req.Channel
	if scope == "" {
		scope = "*"
	}
	return c.JSON(http.StatusOK, map[string]any{"reset": scope})
}

// readUser returns what every registered Reader knows of one user.
func (h *handlers) readUser(c echo.Context) error {
	ch, vid := c.Param("channel"), c.Param("virtualId")
	if _, _, ok := h.Scenarios.ByChannelName(ch); !ok {
		return fail(http.StatusNotFound, "no channel named %q", ch)
	}
	out := map[string]any{"channel": ch, "virtualId": vid, "now": h.Clock.Now()}
	for _, r := range h.Readers {
		v, err := r.Read(ch, vid)
		if err != nil {
			return internal(err)
		}
		out[r.Name] = v
	}
	return c.JSON(http.StatusOK, out)
}
