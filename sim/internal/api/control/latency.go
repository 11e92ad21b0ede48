package control

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/latency"
)

// latencyBody lists the run-time profiles and, for each scenario in
// force, its own (the run-time ones come first).
func (a *API) latencyBody() map[string]any {
	own := map[string][]latency.Profile{}
	for _, sc := range a.scenarios.Scenarios() {
		if ps := sc.Latency.List(); len(ps) > 0 {
			own[sc.Name] = ps
		}
	}
	runtime := a.o.Plane.Latency().List()
	return map[string]any{"profiles": runtime, "scenarios": own}
}

// ListLatency is GET /__sim/latency: the run-time latency profiles and
// the scenarios' own.
func (a *API) ListLatency(c echo.Context) error {
	if err := strictQuery(c, nil); err != nil {
		return fail(http.StatusBadRequest, "%s", err.Error())
	}
	return c.JSON(http.StatusOK, a.latencyBody())
}

// SetLatency is POST /__sim/latency {endpoint, channel, fixed | uniform
// | lognormal, max, seed}: the profile of its endpoint and channel,
// replacing any, kept across a restart; the answer is the profile.
func (a *API) SetLatency(c echo.Context) error {
	return bindApply(a, c, "control.latency", http.StatusOK, func(p latency.Profile) (latency.Profile, error) {
		p, err := a.o.Plane.SetLatency(p)
		if err == nil {
			a.o.Live.Changed("latency")
		}
		return p, err
	})
}

// RemoveLatency is DELETE /__sim/latency?endpoint=E&channel=C: the
// run-time profiles of that endpoint (absent: every one) for that
// channel (absent: every channel's and the every-channel ones), so the
// scenario's own are in force again; the answer lists those removed.
func (a *API) RemoveLatency(c echo.Context) error {
	if err := strictQuery(c, []string{"endpoint", "channel"}); err != nil {
		return fail(http.StatusBadRequest, "%s", err.Error())
	}
	ch := c.QueryParam("channel")
	gone, err := a.o.Plane.RemoveLatency(c.QueryParam("endpoint"), ch, ch == "")
	if err != nil {
		return refused(err)
	}
	a.o.Live.Changed("latency")
	return c.JSON(http.StatusOK, map[string]any{"removed": gone})
}

// latencyP99 is the p99 of the profile now governing endpoint's calls on
// channel (0: none), for the report's client-timeout rule.
func (a *API) latencyP99(endpoint, channel string) time.Duration {
	var own *latency.Set
	if sc := a.scenarios.ActiveFor(channel); sc != nil {
		own = sc.Latency
	}
	if src := latency.First(a.o.Plane.Latency(), own, endpoint, channel); src != nil {
		return src.Quantile(0.99)
	}
	return 0
}
