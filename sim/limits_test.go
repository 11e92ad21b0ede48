package sim_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: CAP-1
// A scenario file's limit holds its channel: on a signed endpoint the
// refusal is the bare Internal Error! failure (checked against the
// endpoint's schema by simtest's client) at the status of the scenario's
// switch; a limit set at run time overrides the file's and, removed,
// gives it back; the control API's answers match their schemas.
func TestLimits_scenarioFileAndRunTime(t *testing.T) {
	s := simtest.New(t, simtest.WithScenarioYAML(scenarioWith(`limits:
  DEMOBANK:
    rate: 0.001
    burst: 2
switches:
  limits:
    status: 429
    retryAfter: false
`)))
	ctx := context.Background()
	call := func() (int, string, string) {
		res, err := s.Client.CallSigned(ctx, s.RewardsURL+"/api/getSecuredReferenceToken", "", map[string]string{"bName": "DEMOBANK"})
		var failed *publisher.FailureError
		if res == nil || err != nil && !errors.As(err, &failed) {
			t.Fatalf("%v", err)
		}
		errString := ""
		if res.Failure != nil {
			errString = res.Failure.ERRORSTRING
		}
		return res.StatusCode, errString, res.Header.Get("Retry-After")
	}
	for i := range 2 { // the file's burst of 2
		if st, e, _ := call(); st != http.StatusOK || e != "" {
			t.Fatalf("call %d within the burst: HTTP %d %q", i, st, e)
		}
	}
	if st, e, ra := call(); st != http.StatusTooManyRequests || e != "Internal Error!" || ra != "" {
		t.Fatalf("over the file's limit: HTTP %d %q Retry-After %q; want 429, the bare Internal Error!, no Retry-After", st, e, ra)
	}
	list := ctlOKRaw(t, s, "/__sim/limits")
	if err := controlSchemas().ValidateJSON("control.limits", list); err != nil {
		t.Errorf("GET /__sim/limits answered outside control.limits.json: %v: %s", err, list)
	}
	got := ctlOK(t, s, http.StatusOK, "POST", "/__sim/limits", map[string]any{"channel": "DEMOBANK", "inFlight": 5})
	if got["source"] != "run-time" || got["scenario"] == nil {
		t.Errorf("POST /__sim/limits answered %v, want the run-time limit over the scenario's", got)
	}
	if st, e, _ := call(); st != http.StatusOK || e != "" {
		t.Fatalf("the run-time limit (no rate) did not override the file's: HTTP %d %q", st, e)
	}
	for _, bad := range []map[string]any{
		{"channel": "DEMOBANK"},
		{"channel": "DEMOBANK", "rate": -1},
		{"channel": "DEMOBANK", "inFlight": 1, "wait": "6m"},
		{"channel": "DEMOBANK", "inFlight": 1, "extra": true},
	} {
		if st, out := ctl(t, s, "POST", "/__sim/limits", bad); st != http.StatusBadRequest {
			t.Errorf("POST /__sim/limits %v: HTTP %d %s, want 400", bad, st, out)
		}
	}
	if st, _ := ctl(t, s, "POST", "/__sim/limits", map[string]any{"channel": "NOPE", "inFlight": 1}); st != http.StatusNotFound {
		t.Errorf("a limit for no channel: HTTP %d, want 404", st)
	}
	ctlOK(t, s, http.StatusOK, "DELETE", "/__sim/limits/DEMOBANK", nil)
	call() // the file's limit is back with a full bucket of 2
	call()
	if st, _, _ := call(); st != http.StatusTooManyRequests {
		t.Errorf("with the run-time limit removed the file's is not back: HTTP %d", st)
	}
	if st, _ := ctl(t, s, "DELETE", "/__sim/limits/DEMOBANK", nil); st != http.StatusNotFound {
		t.Errorf("removing a limit twice: HTTP %d, want 404", st)
	}
}

// clause: SIM-1, CAP-1
// A scenario's limits are bounded and refused with their place.
func TestLimits_scenarioFileBounds(t *testing.T) {
	base := scenarioWith("limits:\n  DEMOBANK:\n    inFlight: 3\n    wait: 1s\n")
	checkScenarioEdits(t, base, []scenarioEdit{
		{"inFlight over its bound", "inFlight: 3", "inFlight: 100001", "/limits/DEMOBANK/inFlight"},
		{"a negative rate", "inFlight: 3", "rate: -2", "/limits/DEMOBANK/rate"},
		{"a wait over 5m", "wait: 1s", "wait: 6m", "/limits/DEMOBANK"},
		{"a limit of nothing", "inFlight: 3", "burst: 3", "/limits/DEMOBANK"},
		{"an unknown field", "inFlight: 3", "inflight: 3", "/limits/DEMOBANK"},
	})
}

// clause: CAP-1
// The channel's control panel shows its capacity limit in force, where it
// comes from and its counts.
func TestLimits_dashboardPanelShowsTheLimit(t *testing.T) {
	s := simtest.New(t)
	_, page := send(t, "GET", s.ControlURL+"/__sim/dashboard", "")
	if !strings.Contains(page, "none: every call answered as it comes") {
		t.Fatal("the panel of a channel with no limit does not say so")
	}
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/limits", map[string]any{"channel": "DEMOBANK", "inFlight": 3, "rate": 20, "wait": "250ms"})
	_, page = send(t, "GET", s.ControlURL+"/__sim/dashboard", "")
	if want := "3 in flight, 20/s (burst 20), waits up to 250ms (run-time); now 0 in flight, 0 waiting; admitted 0, waited 0, refused 0"; !strings.Contains(page, want) {
		t.Errorf("the panel does not show the limit %q", want)
	}
}

// clause: CAP-1
// A channel's own control token sets, reads and removes its own
// channel's limit, and no other's (403).
func TestLimits_channelTokenActsOnItsOwnLimit(t *testing.T) {
	s := sharedBox(t)
	for _, ch := range []string{"JOBA", "JOBB"} {
		if st, out := ctl(t, s, "POST", "/__sim/channels", map[string]any{"name": ch, "like": "DEMOBANK"}, "BOX"); st != http.StatusCreated {
			t.Fatalf("add %s: HTTP %d %s", ch, st, out)
		}
	}
	_, out := ctl(t, s, "POST", "/__sim/channels/JOBA/token", nil, "BOX")
	var issued struct{ Token string }
	decodeInto(t, out, &issued)
	for _, tc := range []struct {
		method, path string
		body         any
		want         int
	}{
		{"POST", "/__sim/limits", map[string]any{"channel": "JOBA", "inFlight": 2}, http.StatusOK},
		{"POST", "/__sim/limits", map[string]any{"channel": "JOBB", "inFlight": 2}, http.StatusForbidden},
		{"GET", "/__sim/limits?channel=JOBA", nil, http.StatusOK},
		{"GET", "/__sim/limits", nil, http.StatusForbidden},
		{"DELETE", "/__sim/limits/JOBB", nil, http.StatusForbidden},
		{"DELETE", "/__sim/limits/JOBA", nil, http.StatusOK},
	} {
		if st, out := ctl(t, s, tc.method, tc.path, tc.body, issued.Token); st != tc.want {
			t.Errorf("%s %s with JOBA's token: HTTP %d %s, want %d", tc.method, tc.path, st, out, tc.want)
		}
	}
}
