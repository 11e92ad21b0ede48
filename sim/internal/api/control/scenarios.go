package control

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/controlplane"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

type scenarioInfo struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Source      string   `json:"source"`
	Channels    []string `json:"channels"`
	Faults      int      `json:"faults"`
}

func infoOf(s *scenario.Scenario) scenarioInfo {
	i := scenarioInfo{Name: s.Name, Description: s.Description, Source: s.Source, Channels: []string{}, Faults: len(s.FaultRules)}
	for _, c := range s.Channels {
		i.Channels = append(i.Channels, c.Name)
	}
	return i
}

// ListScenarios lists the loaded scenarios and what is active where.
func (a *API) ListScenarios(c echo.Context) error {
	out := []scenarioInfo{}
	for _, s := range a.scenarios.Scenarios() {
		out = append(out, infoOf(s))
	}
	return c.JSON(http.StatusOK, map[string]any{
		"active":     a.scenarios.Active().Name,
		"perChannel": a.scenarios.PerChannel(),
		"scenarios":  out,
	})
}

// LoadScenario takes a YAML body (uploaded; ?activate=true&channel=X
// activates it) or a JSON body {path, activate, channel} naming a file on
// the simulator's disk, which is then watched for changes.
func (a *API) LoadScenario(c echo.Context) error {
	var req struct {
		Path     string `json:"path"`
		Activate bool   `json:"activate"`
		Channel  string `json:"channel"`
	}
	var src controlplane.Source
	if strings.HasPrefix(c.Request().Header.Get(echo.HeaderContentType), echo.MIMEApplicationJSON) {
		if err := a.bind(c, "control.scenario", &req); err != nil {
			return err
		}
		src.Path = req.Path
	} else {
		body, err := httpx.ReadBody(c)
		if err != nil {
			return fail(http.StatusRequestEntityTooLarge, "body: %v", err)
		}
		src.Name, src.YAML = c.QueryParam("name"), body
		if src.Name == "" {
			src.Name = "upload.yaml"
		}
		req.Activate = c.QueryParam("activate") == "true"
		req.Channel = c.QueryParam("channel")
	}
	s, err := a.o.Plane.LoadScenario(src, req.Activate, req.Channel)
	var bad *controlplane.BadScenario
	if errors.As(err, &bad) {
		return failScenario(bad.Err)
	}
	if err != nil {
		return refused(err)
	}
	return c.JSON(http.StatusCreated, infoOf(s))
}

// ActiveScenario is the scenario in force (for ?channel=X, that channel's).
func (a *API) ActiveScenario(c echo.Context) error {
	ch := c.QueryParam("channel")
	if ch != "" {
		if _, _, ok := a.scenarios.ByChannelName(ch); !ok {
			return fail(http.StatusNotFound, "no channel named %q", ch)
		}
	}
	return a.activeScenarioFor(c, ch)
}

// ActivateScenario puts a loaded scenario in force ({"channel": X} for one channel).
func (a *API) ActivateScenario(c echo.Context) error {
	var req struct {
		Channel string `json:"channel"`
	}
	if err := a.bind(c, "control.activate", &req); err != nil {
		return err
	}
	if err := a.o.Plane.ActivateScenario(c.Param("name"), req.Channel); err != nil {
		return refused(err)
	}
	return a.activeScenarioFor(c, req.Channel)
}

func (a *API) activeScenarioFor(c echo.Context, ch string) error {
	s := a.scenarios.Active()
	if ch != "" {
		s = a.scenarios.ActiveFor(ch)
	}
	return c.JSON(http.StatusOK, map[string]any{"channel": ch, "scenario": infoOf(s)})
}

// ScenarioSHA256Header carries the hex SHA-256 of a scenario's YAML as
// loaded, so a replay can tell the target's copy from the recorded one.
const ScenarioSHA256Header = "X-Rewardsim-Scenario-Sha256"
