package sim_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// sharedBox is a simulator started as `serve --shared-box --control-token
// BOX` would be, for ctl (which checks every 4xx is control.error).
func sharedBox(t *testing.T) *simtest.Server {
	t.Helper()
	s, err := sim.New(sim.Options{DataDir: t.TempDir(), SharedBox: true, Control: sim.ControlOptions{Token: "BOX"}})
	if err != nil {
		t.Fatal(err)
	}
	ctlSrv := httptest.NewServer(s.Handler(sim.Control))
	t.Cleanup(func() { ctlSrv.Close(); s.Close() })
	return &simtest.Server{ControlURL: ctlSrv.URL}
}

// Issue 50, item 13: on a shared box a channel's own control token acts
// on that channel's faults, clock, stories, verify, journal, state and
// cards, and on nothing else (403 in the control API's error shape: for
// another channel, and on box-wide routes); the box's token still acts
// on every channel.
func TestChannelToken_actsOnItsChannelAlone(t *testing.T) {
	s := sharedBox(t)
	for _, ch := range []string{"JOBA", "JOBB"} {
		if st, out := ctl(t, s, "POST", "/__sim/channels", map[string]any{"name": ch, "like": "DEMOBANK"}, "BOX"); st != http.StatusCreated {
			t.Fatalf("add %s: HTTP %d %s", ch, st, out)
		}
	}
	st, out := ctl(t, s, "POST", "/__sim/channels/JOBA/token", nil, "BOX")
	if st != http.StatusCreated {
		t.Fatalf("issue JOBA's token: HTTP %d %s", st, out)
	}
	if err := controlSchemas().ValidateJSON("control.channel.token", out); err != nil {
		t.Fatalf("answer outside control.channel.token.json: %v: %s", err, out)
	}
	var issued struct{ Channel, Token string }
	decodeInto(t, out, &issued)
	if st, _ := ctl(t, s, "POST", "/__sim/faults", map[string]any{"id": "B-RULE", "endpoint": "fetchCouponCode", "channel": "JOBB", "action": map[string]any{"kind": "internal-error"}}, "BOX"); st != http.StatusCreated {
		t.Fatalf("the box token arms a rule on JOBB: HTTP %d", st)
	}
	fault := func(ch string) map[string]any {
		return map[string]any{"id": "R-" + ch, "endpoint": "fetchCouponCode", "channel": ch, "action": map[string]any{"kind": "internal-error"}}
	}
	verify := func(ch string) map[string]any {
		return map[string]any{"channel": ch, "endpoint": "fetchCouponCode", "times": 0}
	}
	for _, tc := range []struct {
		method, path string
		body         any
		want         int
	}{
		// Its own channel.
		{"POST", "/__sim/faults", fault("JOBA"), http.StatusCreated},
		{"DELETE", "/__sim/faults/R-JOBA", nil, http.StatusNoContent},
		{"POST", "/__sim/clock/advance", map[string]any{"channel": "JOBA", "by": "1m"}, http.StatusOK},
		{"GET", "/__sim/clock?channel=JOBA", nil, http.StatusOK},
		{"POST", "/__sim/stories/uat-down/apply?channel=JOBA", nil, http.StatusCreated},
		{"POST", "/__sim/stories/clear?channel=JOBA", nil, http.StatusOK},
		{"POST", "/__sim/verify", verify("JOBA"), http.StatusOK},
		{"GET", "/__sim/journal?channel=JOBA", nil, http.StatusOK},
		{"DELETE", "/__sim/journal?channel=JOBA", nil, http.StatusNoContent},
		{"POST", "/__sim/state/reset", map[string]any{"channel": "JOBA"}, http.StatusOK},
		{"GET", "/__sim/channels/JOBA", nil, http.StatusOK},
		{"GET", "/__sim/tracking?channel=JOBA&rewardId=1", nil, http.StatusNotFound}, // acted: no such card
		// Another channel's.
		{"POST", "/__sim/faults", fault("JOBB"), http.StatusForbidden},
		{"DELETE", "/__sim/faults/B-RULE", nil, http.StatusForbidden},
		{"POST", "/__sim/clock/advance", map[string]any{"channel": "JOBB", "by": "1m"}, http.StatusForbidden},
		{"POST", "/__sim/stories/uat-down/apply?channel=JOBB", nil, http.StatusForbidden},
		{"POST", "/__sim/verify", verify("JOBB"), http.StatusForbidden},
		{"GET", "/__sim/journal?channel=JOBB", nil, http.StatusForbidden},
		{"POST", "/__sim/state/reset", map[string]any{"channel": "JOBB"}, http.StatusForbidden},
		{"GET", "/__sim/tracking?channel=JOBB&rewardId=1", nil, http.StatusForbidden},
		{"GET", "/__sim/cards/1?channel=JOBB", nil, http.StatusForbidden},
		{"DELETE", "/__sim/channels/JOBB", nil, http.StatusForbidden},
		// The box's.
		{"POST", "/__sim/faults", fault(""), http.StatusForbidden}, // a rule of every channel
		{"GET", "/__sim/faults", nil, http.StatusForbidden},
		{"DELETE", "/__sim/faults", nil, http.StatusForbidden},
		{"POST", "/__sim/clock/advance", map[string]any{"by": "1m"}, http.StatusForbidden}, // the global clock
		{"GET", "/__sim/journal", nil, http.StatusForbidden},
		{"POST", "/__sim/channels", map[string]any{"name": "JOBC", "like": "DEMOBANK"}, http.StatusForbidden},
		{"POST", "/__sim/channels/JOBA/token", nil, http.StatusForbidden},
		{"GET", "/__sim/scenarios", nil, http.StatusForbidden},
	} {
		st, out := ctl(t, s, tc.method, tc.path, tc.body, issued.Token)
		if st != tc.want {
			t.Errorf("JOBA's token: %s %s: HTTP %d %s, want %d", tc.method, tc.path, st, out, tc.want)
		}
		if st == http.StatusForbidden && !strings.Contains(string(out), "channel JOBA alone") {
			t.Errorf("%s %s: the 403 does not say why: %s", tc.method, tc.path, out)
		}
	}
	for _, c := range []struct {
		method, path string
		body         any
		want         int
	}{
		{"POST", "/__sim/faults", fault("JOBB"), http.StatusCreated},
		{"POST", "/__sim/verify", verify("JOBB"), http.StatusOK},
		{"GET", "/__sim/faults", nil, http.StatusOK},
	} {
		if st, out := ctl(t, s, c.method, c.path, c.body, "BOX"); st != c.want {
			t.Errorf("the box token: %s %s: HTTP %d %s, want %d", c.method, c.path, st, out, c.want)
		}
	}
	if st, _ := ctl(t, s, "GET", "/__sim/journal?channel=JOBA", nil); st != http.StatusUnauthorized {
		t.Errorf("no token: HTTP %d, want 401", st)
	}
	// A new token replaces the old; a deleted channel's token dies with it.
	_, out = ctl(t, s, "POST", "/__sim/channels/JOBA/token", nil, "BOX")
	var again struct{ Token string }
	_ = json.Unmarshal(out, &again)
	if st, _ := ctl(t, s, "GET", "/__sim/journal?channel=JOBA", nil, issued.Token); st != http.StatusUnauthorized {
		t.Errorf("the replaced token: HTTP %d, want 401", st)
	}
	if st, out := ctl(t, s, "DELETE", "/__sim/channels/JOBA", nil, again.Token); st != http.StatusNoContent {
		t.Fatalf("JOBA's token deletes JOBA: HTTP %d %s", st, out)
	}
	if st, _ := ctl(t, s, "POST", "/__sim/channels", map[string]any{"name": "JOBA", "like": "DEMOBANK"}, "BOX"); st != http.StatusCreated {
		t.Fatalf("JOBA made again: HTTP %d", st)
	}
	if st, _ := ctl(t, s, "GET", "/__sim/journal?channel=JOBA", nil, again.Token); st != http.StatusUnauthorized {
		t.Errorf("the deleted channel's token on the channel made again: HTTP %d, want 401", st)
	}
}

// Off a shared box one control token serves one team: a channel token
// is refused (409), saying how to get one.
func TestChannelToken_onlyOnASharedBox(t *testing.T) {
	s := simtest.New(t)
	if st, out := ctl(t, s, "POST", "/__sim/channels/DEMOBANK/token", nil); st != http.StatusConflict || !strings.Contains(string(out), "--shared-box") {
		t.Fatalf("a channel token off a shared box: HTTP %d %s, want 409 naming --shared-box", st, out)
	}
}
