package control

import (
	"maps"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/limit"
)

// LimitState is one channel's capacity limit as the control API shows it
// (schemas/control.limits.json): the limit in force and where it comes
// from, the scenario's beneath a run-time one, and the limiter's counts.
type LimitState struct {
	Channel string       `json:"channel"`
	Limit   limit.Config `json:"limit"`
	// Burst is the bucket's size in force (Limit.Burst, or its default).
	Burst int `json:"burst"`
	// Source is "run-time" (rewardsim limit set) or "scenario".
	Source   string        `json:"source"`
	Scenario *limit.Config `json:"scenario,omitempty"`
	Stats    limit.Stats   `json:"stats"`
}

// Limit sources.
const (
	LimitRunTime  = "run-time"
	LimitScenario = "scenario"
)

// LimitStates are the limits in force, by channel name, every channel
// ("" ) or one.
func (a *API) LimitStates(channel string) []LimitState {
	set := a.o.Plane.Limits()
	over := set.Overrides()
	names := map[string]bool{}
	for n := range over {
		names[n] = true
	}
	for _, sc := range a.scenarios.Scenarios() {
		for n := range sc.Limits {
			names[n] = true
		}
	}
	out := []LimitState{}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		if channel != "" && n != channel {
			continue
		}
		if _, _, ok := a.scenarios.ByChannelName(n); !ok {
			continue
		}
		st := LimitState{Channel: n, Source: LimitScenario}
		if fromFile := a.scenarios.ActiveFor(n).LimitOf(n); !fromFile.Zero() {
			st.Limit, st.Scenario = fromFile, &fromFile
		}
		if cfg, ok := over[n]; ok {
			st.Limit, st.Source = cfg, LimitRunTime
		}
		if st.Limit.Zero() {
			continue
		}
		st.Burst, st.Stats = st.Limit.DefaultBurst(), set.Stats(n)
		out = append(out, st)
	}
	return out
}

// ListLimits is GET /__sim/limits?channel=C: the capacity limits in force.
func (a *API) ListLimits(c echo.Context) error {
	ch, err := a.switchChannel(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"limits": a.LimitStates(ch)})
}

// SetLimit is POST /__sim/limits {channel, inFlight, rate, burst, wait}:
// the channel's limit set over its scenario's, kept across a restart; the
// answer is the limit as it now is.
func (a *API) SetLimit(c echo.Context) error {
	var req struct {
		Channel string `json:"channel"`
		limit.Config
	}
	if err := a.bind(c, "control.limit", &req); err != nil {
		return err
	}
	if err := a.o.Plane.SetLimit(req.Channel, req.Config); err != nil {
		return refused(err)
	}
	return c.JSON(http.StatusOK, a.LimitStates(req.Channel)[0])
}

// RemoveLimit is DELETE /__sim/limits/{channel}: the channel's run-time
// limit dropped (its scenario's, if any, is in force again); the answer
// lists what is in force for it now.
func (a *API) RemoveLimit(c echo.Context) error {
	ch := c.Param("channel")
	if err := a.o.Plane.RemoveLimit(ch); err != nil {
		return refused(err)
	}
	return c.JSON(http.StatusOK, map[string]any{"channel": ch, "removed": true, "limits": a.LimitStates(ch)})
}
