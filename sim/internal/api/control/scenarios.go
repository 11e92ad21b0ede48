package control

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/state"
)

// ActivationAll is the activation record key of the default scenario.
const ActivationAll = "*"

// Activation is the stored record of one activation; Channel "" is the
// default scenario.
type Activation struct {
	Channel  string `json:"channel"`
	Scenario string `json:"scenario"`
}

type scenarioInfo struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Source      string   `json:"source"`
	Channels    []string `json:"channels"`
	Faults      int      `json:"faults"`
}

func infoOf(s *scenario.Scenario) scenarioInfo {
	i := scenarioInfo{Name: s.Name, Description: s.Description, Source: s.Source, Channels: []string{}, Faults: len(s.File.Faults)}
	for _, c := range s.Channels {
		i.Channels = append(i.Channels, c.Name)
	}
	return i
}

func (h *handlers) scenarioRoutes(g *echo.Group) {
	g.GET("/scenarios", h.listScenarios)
	g.POST("/scenarios", h.loadScenario)
	g.GET("/scenarios/active", h.activeScenario)
	g.POST("/scenarios/:name/activate", h.activateScenario)
}

func (h *handlers) listScenarios(c echo.Context) error {
	out := []scenarioInfo{}
	for _, s := range h.Scenarios.Scenarios() {
		out = append(out, infoOf(s))
	}
	return c.JSON(http.StatusOK, map[string]any{
		"active":     h.Scenarios.Active().Name,
		"perChannel": h.Scenarios.PerChannel(),
		"scenarios":  out,
	})
}

// loadScenario takes a YAML body (uploaded; ?activate=true&channel=X
// activates it) or a JSON body {path, activate, channel} naming a file on
// the simulator's disk, which is then watched for changes.
func (h *handlers) loadScenario(c echo.Context) error {
	var req struct {
		Path     string `json:"path"`
		Activate bool   `json:"activate"`
		Channel  string `json:"channel"`
	}
	var (
		s   *scenario.Scenario
		rec scenario.Stored
		err error
	)
	if strings.HasPrefix(c.Request().Header.Get(echo.HeaderContentType), echo.MIMEApplicationJSON) {
		if err := h.bind(c, "control.scenario", &req); err != nil {
			return err
		}
		if s, err = h.LoadScenarioFile(req.Path); err != nil {
			return failScenario(err)
		}
		rec = scenario.Stored{Name: s.Name, Path: req.Path}
	} else {
		body, rerr := httpx.ReadBody(c)
		if rerr != nil {
			return fail(http.StatusRequestEntityTooLarge, "body: %v", rerr)
		}
		name := c.QueryParam("name")
		if name == "" {
			name = "upload.yaml"
		}
		if s, err = h.ParseScenario(name, body); err != nil {
			return failScenario(err)
		}
		rec = scenario.Stored{Name: s.Name, YAML: string(body)}
		req.Activate = c.QueryParam("activate") == "true"
		req.Channel = c.QueryParam("channel")
	}
	if err := h.Store.PutConfig(state.KindScenario, s.Name, rec); err != nil {
		return internal(err)
	}
	h.Scenarios.Load(s)
	if req.Activate {
		if err := h.activate(s.Name, req.Channel); err != nil {
			return err
		}
	}
	return c.JSON(http.StatusCreated, infoOf(s))
}

// activate puts scenario name in force for channel ("" = every channel
// without its own). The channel must exist: registered, in the active
// scenario, or listed by the scenario being activated.
func (h *handlers) activate(name, channel string) error {
	if channel != "" {
		_, _, known := h.Scenarios.ByChannelName(channel)
		if sc, ok := h.Scenarios.ByName(name); !known && !(ok && sc.HasChannel(channel)) {
			return fail(http.StatusNotFound, "no channel named %q (not registered, not in the active scenario, not listed by scenario %s)", channel, name)
		}
	}
	if err := h.Scenarios.ActivateName(name, channel); err != nil {
		return fail(http.StatusNotFound, "%v", err)
	}
	key := channel
	if key == "" {
		key = ActivationAll
	}
	if err := h.Store.PutConfig(state.KindActivation, key, Activation{Channel: channel, Scenario: name}); err != nil {
		return internal(err)
	}
	return nil
}

func (h *handlers) activeScenario(c echo.Context) error {
	ch := c.QueryParam("channel")
	s := h.Scenarios.Active()
	if ch != "" {
		if _, _, ok := h.Scenarios.ByChannelName(ch); !ok {
			return fail(http.StatusNotFound, "no channel named %q", ch)
		}
		s = h.Scenarios.ActiveFor(ch)
	}
	return c.JSON(http.StatusOK, map[string]any{"channel": ch, "scenario": infoOf(s)})
}

func (h *handlers) activateScenario(c echo.Context) error {
	var req struct {
		Channel string `json:"channel"`
	}
	if err := h.bind(c, "control.activate", &req); err != nil {
		return err
	}
	name := c.Param("name")
	if _, ok := h.Scenarios.ByName(name); !ok {
		names := []string{}
		for _, s := range h.Scenarios.Scenarios() {
			names = append(names, s.Name)
		}
		slices.Sort(names)
		return fail(http.StatusNotFound, "no scenario named %q is loaded (loaded: %s)", name, strings.Join(names, ", "))
	}
	if err := h.activate(name, req.Channel); err != nil {
		return err
	}
	return h.activeScenarioFor(c, req.Channel)
}

func (h *handlers) activeScenarioFor(c echo.Context, ch string) error {
	s := h.Scenarios.Active()
	if ch != "" {
		s = h.Scenarios.ActiveFor(ch)
	}
	return c.JSON(http.StatusOK, map[string]any{"channel": ch, "scenario": infoOf(s)})
}
