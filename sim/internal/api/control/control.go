// Package control serves the control API under /__sim/ (SIM-3): health
// and the service certificate, scenarios, run-time channels, state reads
// and resets, the simulated clock, fault rules and webhook pushes. JSON in
// and out; every bad input is a 4xx with {"error", "problems"}; request
// bodies are checked against schemas/control.*.json. When Options.Token
// is set, every call but /__sim/health needs it. The package only
// translates: controlplane owns the configuration it changes.
package control

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/controlplane"
	"github.com/rewardsim/rewardsim/sim/internal/coupons"
	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
	"github.com/rewardsim/rewardsim/sim/internal/story"
	"github.com/rewardsim/rewardsim/sim/internal/webhook"
)

// Options build the control API; every field is required.
type Options struct {
	// Plane applies, saves and restores scenarios, channels, fault rules
	// and the clock, and reads and resets state.
	Plane    *controlplane.Plane
	Webhooks *webhook.Scheduler
	// Journal serves /__sim/journal, the recording export and /__sim/report.
	Journal *journal.Journal
	// Cards serves tracking, notifications and card reads, and the dashboard.
	Cards *cards.Service
	// Readers read a user's state for GET /__sim/state/users/...
	Readers        []Reader
	Schemas        *schema.Set
	ServiceCertPEM []byte
	// Token, if set, is required on every call but health.
	Token string
	// Version is the simulator build's version, reported by health.
	Version string
	// Durability is what an answered write survives, reported by health.
	Durability string
	// OpenAPI renders the OpenAPI document of the public surface.
	OpenAPI func() ([]byte, error)
	// OpenAPIControl renders the OpenAPI document of the control API.
	OpenAPIControl func() ([]byte, error)
	// Coupons draws each offer's stock over time on the dashboard.
	Coupons *coupons.Service
	// Live streams journal entries to dashboards (GET /__sim/live).
	Live *Live
	// WebhookDeadline is the deadline in force when a scenario sets none,
	// so the dashboard shows the value that applies.
	WebhookDeadline time.Duration
	// Stories is the book of named failure stories applied to channels.
	Stories *story.Book
	// Sweeps keeps the last sweep reported, which the dashboard shows.
	Sweeps *Sweeps
}

// API is the control API's handlers. It translates requests and answers;
// the services behind it own what they change. The composition root
// routes it (sim/routes.go lists every route).
type API struct {
	o         Options
	scenarios *scenario.Registry // o.Plane's
	heavy     chan struct{}      // slots of MaxHeavyReaders
	secret    []byte             // keys the dashboard's MACs when there is no token
}

// New returns the control API's handlers.
func New(o Options) *API {
	return &API{o: o, scenarios: o.Plane.Scenarios(), heavy: make(chan struct{}, MaxHeavyReaders), secret: newSecret()}
}

// TokenHeader carries the control token (Authorization: Bearer works too).
const TokenHeader = "X-Rewardsim-Control-Token"

// Health is GET /__sim/health, the one call that needs no token.
func (a *API) Health(c echo.Context) error {
	in := a.o.Plane.InForce()
	return c.JSON(http.StatusOK, map[string]any{
		"status":     "ok",
		"version":    a.o.Version,
		"scenario":   in.Scenario,
		"channels":   in.Channels, // channel -> the scenario it runs, when not the active one
		"faults":     in.Faults,   // run-time rules in force, restored or added
		"time":       a.o.Plane.Clock().Now().In(a.scenarios.Active().Location),
		"crypto":     envelope.Backend(),
		"durability": a.o.Durability,
		"stories":    a.o.Stories.All(),
	})
}

// ServiceCert serves the certificate that verifies the simulator's answers.
func (a *API) ServiceCert(c echo.Context) error {
	return c.Blob(http.StatusOK, "application/x-pem-file", a.o.ServiceCertPEM)
}

// NotFound answers a control path that is no control call.
func (a *API) NotFound(c echo.Context) error {
	return fail(http.StatusNotFound, "no control call %s %s", c.Request().Method, c.Request().URL.Path)
}

// Auth requires the control token, when one is set (the header, or the
// dashboard's session cookie), and the CSRF token of a browser's write
// (dashboard_auth.go).
func (a *API) Auth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		byCookie := false
		if a.o.Token != "" && !a.headerToken(r) {
			if ch, ok := a.o.Plane.TokenChannel(presentedToken(r)); ok {
				return fail(http.StatusForbidden, "this control token acts on channel %s alone; %s %s is the box's (its control token)", ch, r.Method, c.Path())
			}
			if byCookie = a.sessionCookie(r); !byCookie {
				return fail(http.StatusUnauthorized, "this control API needs its token: header %s or Authorization: Bearer", TokenHeader)
			}
		}
		if !a.csrfOK(r, byCookie) {
			return fail(http.StatusForbidden, "a write from a page needs the dashboard's CSRF token in header %s", CSRFHeader)
		}
		return next(c)
	}
}

// authorized reports whether a read may go on (Auth without the answer).
func (a *API) authorized(r *http.Request) bool {
	return a.o.Token == "" || a.headerToken(r) || a.sessionCookie(r)
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

// readBody is the one read of a control call's body, bounded (413).
func readBody(c echo.Context) ([]byte, error) {
	body, err := httpx.ReadBody(c)
	if err != nil {
		return nil, fail(http.StatusRequestEntityTooLarge, "body: %v", err)
	}
	return body, nil
}

// bind reads a JSON body, checks it against schemas/<name>.json and
// decodes it into dst. An empty body reads as {}.
func (a *API) bind(c echo.Context, name string, dst any) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	if err := a.o.Schemas.ValidateJSON(name, body); err != nil {
		return badBody("body does not match schemas/"+name+".json: ", err)
	}
	if err := json.Unmarshal(body, dst); err != nil {
		return fail(http.StatusBadRequest, "body: %v", err)
	}
	return nil
}

// bindApply is a write whose body is what apply takes: the body bound
// to T (checked against schemas/<name>.json), applied, and what apply
// made answered with status (a refusal in its own status).
func bindApply[T, R any](a *API, c echo.Context, name string, status int, apply func(T) (R, error)) error {
	var in T
	if err := a.bind(c, name, &in); err != nil {
		return err
	}
	out, err := apply(in)
	if err != nil {
		return refused(err)
	}
	return c.JSON(status, out)
}

// badBody is a 400 saying msg and err, with each schema problem located.
func badBody(msg string, err error) error {
	b := errorBody{Error: msg + err.Error()}
	var se *schema.Error
	if errors.As(err, &se) {
		for _, p := range se.Problems {
			b.Problems = append(b.Problems, Problem{Path: p.Path, Reason: p.Message})
		}
	}
	return &httpx.Error{Status: http.StatusBadRequest, Body: b, Reason: b.Error}
}

// refused renders a change the control plane refused (4xx), or its
// store's failure (5xx).
func refused(err error) error {
	r, ok := refusal.Of(err)
	if !ok {
		return internal(err)
	}
	return fail(httpx.StatusOf(r.Kind), "%s", r.Msg)
}

// internal wraps a store failure: it is the simulator's fault, but the
// control API still answers in its own shape.
func internal(err error) error {
	return &httpx.Error{Status: http.StatusInternalServerError, Body: errorBody{Error: "simulator: " + err.Error()}, Reason: err.Error()}
}
