package control

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/httpx"
)

// statusOf is the status an error of the control API answers with (0:
// the handler ran).
func statusOf(err error) int {
	if err == nil {
		return 0
	}
	var he *httpx.Error
	if errors.As(err, &he) {
		return he.Status
	}
	return -1
}

// The guard (security.md): Host must be loopback, an IP, a single label,
// this machine's name or an allowed one; a write is refused when the
// browser says it is cross-origin or its body is not JSON or YAML.
func TestGuard(t *testing.T) {
	cases := []struct {
		name, method, host, body string
		header                   map[string]string
		want                     int
	}{
		{"loopback read", "GET", "127.0.0.1:8090", "", nil, 0},
		{"localhost read", "GET", "localhost:8090", "", nil, 0},
		{"a sub of localhost", "GET", "app.localhost", "", nil, 0},
		{"IPv6 literal", "GET", "[::1]:8090", "", nil, 0},
		{"single-label container name", "GET", "rewardsim:8090", "", nil, 0},
		{"allowed name", "GET", "sim.internal.example:8090", "", nil, 0},
		{"allowed name, trailing dot, upper case", "GET", "SIM.internal.example.", "", nil, 0},
		{"rebound public name", "GET", "attacker.example.com", "", nil, http.StatusForbidden},
		{"no Host (HTTP/1.0)", "GET", "", "", nil, 0},
		{"JSON write", "POST", "127.0.0.1", `{}`, map[string]string{"Content-Type": "application/json"}, 0},
		{"YAML write", "POST", "127.0.0.1", "a: 1", map[string]string{"Content-Type": "application/yaml; charset=utf-8"}, 0},
		{"+json write", "POST", "127.0.0.1", `{}`, map[string]string{"Content-Type": "application/merge-patch+json"}, 0},
		{"empty write with no type (curl -X POST)", "POST", "127.0.0.1", "", nil, 0},
		{"form write", "POST", "127.0.0.1", "a=1", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType},
		{"text/plain write", "POST", "127.0.0.1", "{}", map[string]string{"Content-Type": "text/plain"}, http.StatusUnsupportedMediaType},
		{"body with no type", "POST", "127.0.0.1", "{}", nil, http.StatusUnsupportedMediaType},
		{"cross-site write", "DELETE", "127.0.0.1", "", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"same-origin write", "DELETE", "127.0.0.1", "", map[string]string{"Sec-Fetch-Site": "same-origin"}, 0},
		{"foreign Origin write", "POST", "127.0.0.1:8090", `{}`, map[string]string{"Origin": "http://evil.example", "Content-Type": "application/json"}, http.StatusForbidden},
		{"null Origin write", "POST", "127.0.0.1:8090", `{}`, map[string]string{"Origin": "null", "Content-Type": "application/json"}, http.StatusForbidden},
		{"own Origin write", "POST", "127.0.0.1:8090", `{}`, map[string]string{"Origin": "http://127.0.0.1:8090", "Content-Type": "application/json"}, 0},
		{"cross-site read is fine", "GET", "127.0.0.1", "", map[string]string{"Sec-Fetch-Site": "cross-site"}, 0},
	}
	guard := Guard([]string{"sim.internal.example"})
	e := echo.New()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "/__sim/faults", strings.NewReader(tc.body))
			req.Host = tc.host
			if tc.body == "" {
				req.Body, req.ContentLength = http.NoBody, 0
			}
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			err := guard(func(echo.Context) error { return nil })(e.NewContext(req, httptest.NewRecorder()))
			if got := statusOf(err); got != tc.want {
				t.Errorf("status %d, want %d (%v)", got, tc.want, err)
			}
		})
	}
}

// Path parameters reach the handler unescaped; a bad escape is a 400.
func TestDecodePathParams(t *testing.T) {
	cases := []struct {
		in, want string
		status   int
	}{
		{"story%3Astock-out%3ADEMOBANK%3A1", "story:stock-out:DEMOBANK:1", 0},
		{"plain", "plain", 0},
		{"a%2Fb", "a/b", 0},
		{"bad%zz", "", http.StatusBadRequest},
	}
	e := echo.New()
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			c := e.NewContext(httptest.NewRequest("GET", "/", nil), httptest.NewRecorder())
			c.SetParamNames("id")
			c.SetParamValues(tc.in)
			var got string
			err := DecodePathParams(func(c echo.Context) error { got = c.Param("id"); return nil })(c)
			if statusOf(err) != tc.status || got != tc.want {
				t.Errorf("got %q (status %d), want %q (status %d)", got, statusOf(err), tc.want, tc.status)
			}
		})
	}
}

// BodyChannel reads a JSON body's channel and puts the body back whole
// for the handler; a body that is no JSON object names no channel.
func TestBodyChannel(t *testing.T) {
	cases := []struct{ body, want string }{
		{`{"channel":"CI-42","by":"2h"}`, "CI-42"},
		{`{"by":"2h"}`, ""},
		{`not json`, ""},
		{`["channel"]`, ""},
		{``, ""},
	}
	e := echo.New()
	for _, tc := range cases {
		t.Run(tc.body, func(t *testing.T) {
			c := e.NewContext(httptest.NewRequest("POST", "/", strings.NewReader(tc.body)), httptest.NewRecorder())
			if got := BodyChannel(c); got != tc.want {
				t.Errorf("channel %q, want %q", got, tc.want)
			}
			if b, _ := io.ReadAll(c.Request().Body); string(b) != tc.body {
				t.Errorf("the handler reads %q, want the whole body %q", b, tc.body)
			}
		})
	}
}
