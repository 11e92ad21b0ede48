package signedcall

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/frontdoor"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

// withStatus is a scenario whose failureHttpStatus switch is status.
func withStatus(status int) *scenario.Scenario {
	sc := &scenario.Scenario{}
	sc.Switches.FailureHTTPStatus = status
	return sc
}

func echoContext(body []byte) echo.Context {
	req := httptest.NewRequest(http.MethodPost, "/api/x", bytes.NewReader(body))
	return echo.New().NewContext(req, httptest.NewRecorder())
}

func asFailure(t *testing.T, err error) (int, FailureBody, string) {
	t.Helper()
	var he *httpx.Error
	if !errors.As(err, &he) {
		t.Fatalf("%v (%T) is not an httpx.Error", err, err)
	}
	fb, ok := he.Body.(FailureBody)
	if !ok {
		t.Fatalf("body %#v is not the bare failure shape", he.Body)
	}
	return he.Status, fb, he.Reason
}

// clause: ENV-5, ENV-6 (the bare failure and its HTTP status switch)
func TestFailureAndInvalid(t *testing.T) {
	cases := []struct {
		name       string
		err        error
		status     int
		errorStr   string
		reasonPart string
	}{
		{"switch 200", Failure(withStatus(200), 0, InternalError, "why"), 200, InternalError, "why"},
		{"switch 400", Failure(withStatus(400), 0, SignatureMismatch, "why"), 400, SignatureMismatch, "why"},
		{"explicit status wins", Failure(withStatus(200), 503, InternalError, "why"), 503, InternalError, "why"},
		{"invalid names the problem", Invalid(withStatus(200), "bName is missing"), 200, InvalidRequest + " bName is missing", "bName is missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body, reason := asFailure(t, c.err)
			if status != c.status || body.STATUS != "FAILURE" || body.ERRORSTRING != c.errorStr || !strings.Contains(reason, c.reasonPart) {
				t.Fatalf("HTTP %d %+v %q; want HTTP %d %q", status, body, reason, c.status, c.errorStr)
			}
		})
	}
}

// clause: ENV-6 (a body over 1 MiB is 413 in the bare failure shape)
func TestReadFailure(t *testing.T) {
	sc := withStatus(200)
	if err := ReadFailure(sc, nil); err != nil {
		t.Fatalf("a body read: %v", err)
	}
	_, readErr := httpx.ReadBody(echoContext(bytes.Repeat([]byte("a"), 2<<20)))
	status, body, _ := asFailure(t, ReadFailure(sc, readErr))
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(body.ERRORSTRING, "larger than 1 MiB") {
		t.Fatalf("2 MiB body: HTTP %d %+v", status, body)
	}
}

// clause: SIM-3 (injected faults in the signed endpoints' shape)
func TestFaults(t *testing.T) {
	sc := withStatus(200)
	cases := []struct {
		act      fault.Action
		status   int
		errorStr string // "" for a raw body
		goesOn   bool   // the endpoint answers (or shapes) itself
	}{
		{fault.Action{Kind: fault.InternalError}, 200, InternalError, false},
		{fault.Action{Kind: fault.InternalError, Status: 500}, 500, InternalError, false},
		{fault.Action{Kind: fault.SignatureMismatch}, 200, SignatureMismatch, false},
		{fault.Action{Kind: fault.HTTPStatus, Status: 503}, 503, "", false},
		{fault.Action{Kind: fault.MalformedBody}, 200, "", false},
		{fault.Action{Kind: fault.NotEligible}, 0, "", true},
		{fault.Action{Kind: fault.Delay}, 0, "", true},
	}
	for _, c := range cases {
		t.Run(c.act.Kind, func(t *testing.T) {
			stop, err := Faults(echoContext(nil), &frontdoor.Call{Scenario: sc}, c.act)
			if c.goesOn {
				if stop || err != nil {
					t.Fatalf("%+v stopped the call: %v", c.act, err)
				}
				return
			}
			var he *httpx.Error
			if !errors.As(err, &he) || he.Status != c.status || !strings.HasPrefix(he.Reason, "injected fault: "+c.act.Kind) {
				t.Fatalf("%+v: %#v, want HTTP %d", c.act, err, c.status)
			}
			if c.errorStr != "" {
				if fb, ok := he.Body.(FailureBody); !ok || fb.ERRORSTRING != c.errorStr {
					t.Fatalf("%+v: body %#v, want ERRORSTRING %q", c.act, he.Body, c.errorStr)
				}
			}
		})
	}
}

// WriteEnvelope writes what c.JSON writes (status, headers, bytes), for
// plain envelopes, ones that need escaping, and the requests echo
// indents the answer for (?pretty, debug mode).
func TestWriteEnvelopeAsJSON(t *testing.T) {
	envs := []envelope.Envelope{
		{CHANNELID: "RWDSIM01", SIGN: "c2lnbg==", BDATA: "eyJhIjoiYiJ9"},
		{CHANNELID: "RWDSIM01", BDATA: "eyJhIjoiYiJ9"},
		{CHANNELID: `a"b\c`, SIGN: "x", BDATA: "<&>"},
		{CHANNELID: "é\u2028", SIGN: "", BDATA: ""},
	}
	answer := func(target string, debug bool, write func(echo.Context) error) *httptest.ResponseRecorder {
		e := echo.New()
		e.JSONSerializer = httpx.JSONSerializer{}
		e.Debug = debug
		rec := httptest.NewRecorder()
		if err := write(e.NewContext(httptest.NewRequest(http.MethodPost, target, nil), rec)); err != nil {
			t.Fatal(err)
		}
		return rec
	}
	for _, env := range envs {
		for _, target := range []string{"/api/x", "/api/x?pretty", "/api/x?a=b"} {
			for _, debug := range []bool{false, true} {
				got := answer(target, debug, func(c echo.Context) error { return WriteEnvelope(c, env) })
				want := answer(target, debug, func(c echo.Context) error { return c.JSON(http.StatusOK, env) })
				if got.Code != want.Code || got.Body.String() != want.Body.String() || !reflect.DeepEqual(got.Header(), want.Header()) {
					t.Errorf("%+v %s debug=%v: WriteEnvelope %d %v %q, c.JSON %d %v %q", env, target, debug,
						got.Code, got.Header(), got.Body, want.Code, want.Header(), want.Body)
				}
			}
		}
	}
}
