package control

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/state"
	"github.com/rewardsim/rewardsim/sim/internal/token"
)

func (h *handlers) faultRoutes(g *echo.Group) {
	g.GET("/faults", h.listFaults)
	g.POST("/faults", h.addFault)
	g.DELETE("/faults/:id", h.removeFault)
	g.DELETE("/faults", h.clearFaults)
}

func (h *handlers) listFaults(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]any{"rules": h.Faults.List()})
}

// addFault arms a rule (same shape as a scenario file's faults[] item),
// consulted before the scenario's own rules. It is kept in the store and
// re-armed after a restart, with fresh counters.
func (h *handlers) addFault(c echo.Context) error {
	var r fault.Rule
	if err := h.bind(c, "control.fault", &r); err != nil {
		return err
	}
	if err := fault.Check(r); err != nil {
		return fail(http.StatusBadRequest, "%v", err)
	}
	if r.Channel != "" {
		if _, _, ok := h.Scenarios.ByChannelName(r.Channel); !ok {
			return fail(http.StatusNotFound, "no channel named %q", r.Channel)
		}
	}
	if r.ID == "" {
		id, err := token.NewOpaque(h.Rand, 6)
		if err != nil {
			return internal(err)
		}
		r.ID = "f-" + id
	}
	h.Faults.Add(r)
	for _, st := range h.Faults.List() {
		if st.ID == r.ID {
			if err := h.Store.PutConfig(state.KindFault, r.ID, st); err != nil {
				h.Faults.Remove(r.ID)
				return internal(err)
			}
			return c.JSON(http.StatusCreated, st)
		}
	}
	return internal(errNotArmed)
}

var errNotArmed = errors.New("rule was not armed")

func (h *handlers) removeFault(c echo.Context) error {
	id := c.Param("id")
	if !h.Faults.Remove(id) {
		return fail(http.StatusNotFound, "no fault rule %q", id)
	}
	if err := h.Store.DeleteConfig(state.KindFault, id); err != nil {
		return internal(err)
	}
	return c.NoContent(http.StatusNoContent)
}

func (h *handlers) clearFaults(c echo.Context) error {
	for _, st := range h.Faults.List() {
		h.Faults.Remove(st.ID)
		if err := h.Store.DeleteConfig(state.KindFault, st.ID); err != nil {
			return internal(err)
		}
	}
	return c.NoContent(http.StatusNoContent)
}
