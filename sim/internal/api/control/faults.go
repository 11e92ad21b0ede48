package control

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/fault"
)

// ListFaults lists the run-time fault rules with their counters.
func (a *API) ListFaults(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]any{"rules": a.plane.Faults().List()})
}

// AddFault arms a rule (same shape as a scenario file's faults[] item),
// consulted before the scenario's own rules. It is kept and re-armed
// after a restart.
func (a *API) AddFault(c echo.Context) error {
	var r fault.Rule
	if err := a.bind(c, "control.fault", &r); err != nil {
		return err
	}
	st, err := a.plane.AddFault(r)
	if err != nil {
		return refused(err)
	}
	return c.JSON(http.StatusCreated, st)
}

// RemoveFault disarms one rule.
func (a *API) RemoveFault(c echo.Context) error {
	if err := a.plane.RemoveFault(c.Param("id")); err != nil {
		return refused(err)
	}
	return c.NoContent(http.StatusNoContent)
}

// ClearFaults disarms every run-time rule.
func (a *API) ClearFaults(c echo.Context) error {
	if err := a.plane.ClearFaults(); err != nil {
		return refused(err)
	}
	return c.NoContent(http.StatusNoContent)
}
