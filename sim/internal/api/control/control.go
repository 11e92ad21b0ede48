// Package control serves the control API under /__sim/ (SIM-3): health
// and the service certificate, scenarios, run-time channels, state reads
// and resets, the simulated clock, fault rules and webhook pushes. JSON in
// and out; every bad input is a 4xx with {"error", "problems"}; request
// bodies are checked against schemas/control.*.json. When Deps.Token is
// set, every call but /__sim/health needs it.
package control

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
	"github.com/rewardsim/rewardsim/sim/internal/webhook"
)

// Store is the durable configuration and state the control API touches.
type Store interface {
	PutConfig(kind, key string, v any) error
	GetConfig(kind, key string, v any) error
	DeleteConfig(kind, key string) error
	ConfigList(kind string) ([]json.RawMessage, error)
	ResetChannel(channel string) error
}

// Reader reads one kind of a user's state for GET /__sim/state/...; other
// areas (cards, coupons) plug theirs in by name.
type Reader struct {
	Name string
	Read func(channel, virtualID string) (any, error)
}

// Deps is what the control API needs.
type Deps struct {
	ServiceCertPEM []byte
	Clock          clock.Clock
	Scenario       func() string

	// Token, if set, is required on every call but health.
	Token     string
	Schemas   *schema.Set
	Store     Store
	Scenarios *scenario.Registry
	// ParseScenario compiles uploaded YAML; name is how errors name it.
	ParseScenario func(name string, data []byte) (*scenario.Scenario, error)
	// LoadScenarioFile reads a scenario file or folder from disk and
	// watches it for hot reload.
	LoadScenarioFile func(path string) (*scenario.Scenario, error)
	Faults           *fault.Set
	Webhooks         *webhook.Scheduler
	Readers          []Reader
	Rand             io.Reader
	// Journal serves /__sim/journal, /__sim/session and /__sim/report.
	Journal *journal.Journal
	// Cards serves tracking, notifications and card reads; Dashboard the
	// HTML overview. Both sit behind the control token like every call.
	Cards     *CardDeps
	Dashboard *DashboardDeps
	// Version is the simulator build's version, reported by health.
	Version string
}

// TokenHeader carries the control token (Authorization: Bearer works too).
const TokenHeader = "X-Rewardsim-Control-Token"

// Register adds the control routes to e.
func Register(e *echo.Echo, d Deps) {
	h := &handlers{d}
	g := e.Group("/__sim")
	g.GET("/health", func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]any{
			"status":   "ok",
			"version":  d.Version,
			"scenario": d.Scenario(),
			"time":     d.Clock.Now(),
		})
	})
	g.Use(h.auth)
	g.GET("/certs/service.pem", func(c echo.Context) error {
		return c.Blob(http.StatusOK, "application/x-pem-file", d.ServiceCertPEM)
	})
	if d.Journal != nil {
		registerJournal(g, d)
	}
	if d.Cards != nil {
		registerCards(g, *d.Cards)
	}
	if d.Dashboard != nil {
		h.registerDashboard(g, *d.Dashboard)
	}
	if d.Store == nil { // the foundation's minimal wiring
		return
	}
	h.scenarioRoutes(g)
	h.channelRoutes(g)
	h.stateRoutes(g)
	h.clockRoutes(g)
	h.faultRoutes(g)
	h.webhookRoutes(g)
	g.Any("/*", func(c echo.Context) error {
		return fail(http.StatusNotFound, "no control call %s %s", c.Request().Method, c.Request().URL.Path)
	})
}

type handlers struct{ Deps }

func (h *handlers) auth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if h.Token == "" {
			return next(c)
		}
		got := c.Request().Header.Get(TokenHeader)
		if v, ok := strings.CutPrefix(c.Request().Header.Get("Authorization"), "Bearer "); ok && got == "" {
			got = v
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(h.Token)) != 1 {
			return fail(http.StatusUnauthorized, "this control API needs its token: header %s or Authorization: Bearer", TokenHeader)
		}
		return next(c)
	}
}

// Problem locates one problem of a refused input.
type Problem struct {
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Path   string `json:"path,omitempty"`
	Reason string `json:"reason"`
}

type errorBody struct {
	Error    string    `json:"error"`
	Problems []Problem `json:"problems,omitempty"`
}

func fail(status int, format string, a ...any) error {
	msg := fmt.Sprintf(format, a...)
	return &httpx.Error{Status: status, Body: errorBody{Error: msg}, Reason: msg}
}

// failScenario renders scenario problems with file, line, path and reason.
func failScenario(err error) error {
	var es scenario.Errors
	if !errors.As(err, &es) {
		return fail(http.StatusBadRequest, "scenario refused: %v", err)
	}
	b := errorBody{Error: "scenario refused: " + es.Error()}
	for _, e := range es {
		b.Problems = append(b.Problems, Problem{File: e.File, Line: e.Line, Path: e.Path, Reason: e.Msg})
	}
	return &httpx.Error{Status: http.StatusBadRequest, Body: b, Reason: strings.ReplaceAll(b.Error, "\n", "; ")}
}

// bind reads a JSON body, checks it against schemas/<name>.json and
// decodes it into dst. An empty body reads as {}.
func (h *handlers) bind(c echo.Context, name string, dst any) error {
	body, err := httpx.ReadBody(c)
	if err != nil {
		return fail(http.StatusRequestEntityTooLarge, "body: %v", err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	if err := h.Schemas.ValidateJSON(name, body); err != nil {
		b := errorBody{Error: "body does not match schemas/" + name + ".json: " + err.Error()}
		var se *schema.Error
		if errors.As(err, &se) {
			for _, p := range se.Problems {
				b.Problems = append(b.Problems, Problem{Path: p.Path, Reason: p.Message})
			}
		}
		return &httpx.Error{Status: http.StatusBadRequest, Body: b, Reason: b.Error}
	}
	if err := json.Unmarshal(body, dst); err != nil {
		return fail(http.StatusBadRequest, "body: %v", err)
	}
	return nil
}

// internal wraps a store failure: it is the simulator's fault, but the
// control API still answers in its own shape.
func internal(err error) error {
	return &httpx.Error{Status: http.StatusInternalServerError, Body: errorBody{Error: "simulator: " + err.Error()}, Reason: err.Error()}
}
