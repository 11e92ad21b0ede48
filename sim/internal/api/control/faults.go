package control

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/story"
)

// ListFaults lists the run-time fault rules with their counters;
// ?active=true only those that can still fire (no spent one-shot rule).
func (a *API) ListFaults(c echo.Context) error {
	if err := strictQuery(c, []string{"active"}); err != nil {
		return fail(http.StatusBadRequest, "%s", err.Error())
	}
	active, err := boolParam(c, "active")
	if err != nil {
		return err
	}
	rules := a.o.Plane.Faults().List()
	if active {
		rules = slices.DeleteFunc(rules, func(st fault.Status) bool { return st.Spent })
	}
	return c.JSON(http.StatusOK, map[string]any{"rules": rules})
}

// boolParam reads ?name=true|false (absent: false).
func boolParam(c echo.Context, name string) (bool, error) {
	switch v := c.QueryParam(name); v {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	default:
		return false, fail(http.StatusBadRequest, "%s: %q is not true or false", name, v)
	}
}

// AddFault arms a rule (same shape as a scenario file's faults[] item),
// consulted before the scenario's own rules. It is kept and re-armed
// after a restart.
func (a *API) AddFault(c echo.Context) error {
	return bindApply(a, c, "control.fault", http.StatusCreated, a.o.Plane.AddFault)
}

// RemoveFault disarms one rule: 204. A rule a story armed answers 200
// with what that does to the story (control.fault.removed.json): only
// that rule is off; the story's other rules stay armed (its last rule
// gone, the story is no longer applied) and its clock stays moved until
// story clear.
func (a *API) RemoveFault(c echo.Context) error {
	id := c.Param("id")
	if err := a.o.Plane.RemoveFault(id); err != nil {
		return refused(err)
	}
	name, ch, ok := story.ParseRuleID(id)
	if !ok {
		return c.NoContent(http.StatusNoContent)
	}
	left := 0
	for _, st := range a.o.Plane.Faults().List() {
		if n, rch, ok := story.ParseRuleID(st.ID); ok && n == name && rch == ch {
			left++
		}
	}
	effect := fmt.Sprintf("disarmed one rule of story %s on channel %s; its %d other rule(s) stay armed; story clear undoes the rest of the story (its clock move too)", name, ch, left)
	if left == 0 {
		// The book forgot the story when its last rule went (OnRemove).
		effect = fmt.Sprintf("disarmed the last rule of story %s on channel %s: the story is no longer applied; story clear still puts back a clock it moved", name, ch)
	}
	return c.JSON(http.StatusOK, map[string]any{"removed": id, "story": name, "channel": ch, "rulesLeft": left, "effect": effect})
}

// ClearFaults disarms every run-time rule.
func (a *API) ClearFaults(c echo.Context) error {
	if err := a.o.Plane.ClearFaults(); err != nil {
		return refused(err)
	}
	return c.NoContent(http.StatusNoContent)
}
