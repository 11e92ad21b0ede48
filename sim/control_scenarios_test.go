package sim_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

const flakyScenario = `version: 1
name: flaky
description: sessions fail for whoever runs this
channels:
  - name: DEMOBANK
    channelId: DEMOBANK
    certificateFile: builtin:publisher-dev.crt
faults:
  - endpoint: GenerateSessionInfoV2
    action: {kind: internal-error}
`

// clause: SIM-1, SIM-3
// Scenarios are uploaded, listed, activated per channel and shown; the
// activated scenario's faults govern that channel only.
func TestControlScenarios_SIM1_uploadActivatePerChannel(t *testing.T) {
	s := simtest.New(t)
	other := registerChannel(t, s, "CIB", 1, "")

	info := ctlOK(t, s, http.StatusCreated, "POST", "/__sim/scenarios", flakyScenario)
	if info["name"] != "flaky" || info["faults"] != 1.0 {
		t.Fatalf("upload answered %v", info)
	}
	list := ctlOK(t, s, http.StatusOK, "GET", "/__sim/scenarios", nil)
	if list["active"] != "default" || len(list["scenarios"].([]any)) != 2 {
		t.Fatalf("list = %v, want default active and two scenarios", list)
	}
	// Before activation, sessions work.
	if _, err := s.Client.Session(bg, "VU-1"); err != nil {
		t.Fatalf("session before activation: %v", err)
	}
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/scenarios/flaky/activate", map[string]any{"channel": "DEMOBANK"})
	act := ctlOK(t, s, http.StatusOK, "GET", "/__sim/scenarios/active?channel=DEMOBANK", nil)
	if act["scenario"].(map[string]any)["name"] != "flaky" {
		t.Fatalf("active for DEMOBANK = %v", act)
	}
	if _, err := s.Client.Session(bg, "VU-1"); !publisher.IsFailure(err, "Internal Error!") {
		t.Fatalf("DEMOBANK under flaky: got %v, want Internal Error!", err)
	}
	// The other channel still runs the default scenario.
	if _, err := other.Session(bg, "VU-1"); err != nil {
		t.Fatalf("CIB under default: %v", err)
	}
	act = ctlOK(t, s, http.StatusOK, "GET", "/__sim/scenarios/active?channel=CIB", nil)
	if act["scenario"].(map[string]any)["name"] != "default" {
		t.Fatalf("active for CIB = %v", act)
	}
	// Activating for everyone switches the default.
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/scenarios/flaky/activate", nil)
	if _, err := other.Session(bg, "VU-1"); !publisher.IsFailure(err, "Internal Error!") {
		t.Fatalf("CIB under flaky: got %v", err)
	}
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/scenarios/default/activate", nil)
	if _, err := other.Session(bg, "VU-1"); err != nil {
		t.Fatalf("CIB back on default: %v", err)
	}
}

// clause: SIM-1
// Invalid scenario files are refused with file, line, path and reason.
func TestControlScenarios_SIM1_invalidRefusedWithLocation(t *testing.T) {
	s := simtest.New(t)
	cases := []struct {
		name, yaml, path, reason string
		line                     int
	}{
		{"syntax", "version: 1\nname: [oops\n", "", "yaml", 0},
		{"unknown key", "version: 1\nname: x\nchannels: [{name: DEMOBANK, certificateFile: \"builtin:publisher-dev.crt\"}]\nbogus: 1\n", "/bogus", "bogus", 4},
		{"bad fault kind", "version: 1\nname: x\nchannels: [{name: DEMOBANK, certificateFile: \"builtin:publisher-dev.crt\"}]\nfaults:\n  - endpoint: GenerateSessionInfoV2\n    action: {kind: explode}\n", "/faults/0/action/kind", "", 6},
		{"delay without delay", "version: 1\nname: x\nchannels: [{name: DEMOBANK, certificateFile: \"builtin:publisher-dev.crt\"}]\nfaults:\n  - endpoint: '*'\n    action: {kind: delay}\n", "/faults/0/action/delay", "positive delay", 6},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, out := ctl(t, s, "POST", "/__sim/scenarios?name=ci.yaml", tc.yaml)
			if st != http.StatusBadRequest {
				t.Fatalf("HTTP %d, want 400: %s", st, out)
			}
			var e struct {
				Error    string
				Problems []struct {
					File, Path, Reason string
					Line               int
				}
			}
			decodeInto(t, out, &e)
			if len(e.Problems) == 0 {
				t.Fatalf("no problems listed: %s", out)
			}
			p := e.Problems[0]
			for _, q := range e.Problems {
				if q.Path == tc.path {
					p = q
				}
			}
			if p.File != "ci.yaml" || p.Reason == "" || (tc.path != "" && p.Path != tc.path) ||
				(tc.reason != "" && !strings.Contains(e.Error, tc.reason)) || (tc.line != 0 && p.Line != tc.line) {
				t.Errorf("problem = %+v (error %q), want file ci.yaml, path %q, line %d, reason mentioning %q", p, e.Error, tc.path, tc.line, tc.reason)
			}
		})
	}
	// Nothing half-loaded: still only the default scenario.
	if list := ctlOK(t, s, http.StatusOK, "GET", "/__sim/scenarios", nil); len(list["scenarios"].([]any)) != 1 {
		t.Errorf("refused files were loaded: %v", list)
	}
}

// clause: SIM-1
// A scenario loaded from a file on disk is reloaded when the file changes;
// a broken edit is refused and the previous version stays.
func TestControlScenarios_SIM1_hotReload(t *testing.T) {
	s := simtest.New(t, simtest.WithControl(sim.ControlOptions{ScenarioPoll: 5 * time.Millisecond}))
	path := filepath.Join(t.TempDir(), "ci.yaml")
	write := func(body string) {
		// A distinct size makes the change visible even within one mtime tick.
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("version: 1\nname: ci\ndescription: one\nchannels: [{name: DEMOBANK, certificateFile: \"builtin:publisher-dev.crt\"}]\n")
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/scenarios", map[string]any{"path": path})

	description := func() string {
		list := ctlOK(t, s, http.StatusOK, "GET", "/__sim/scenarios", nil)
		for _, x := range list["scenarios"].([]any) {
			if m := x.(map[string]any); m["name"] == "ci" {
				return m["description"].(string)
			}
		}
		return ""
	}
	waitFor := func(want string) {
		for range 2000 { // bounded: at most ~10s of polling
			if description() == want {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatalf("description never became %q", want)
	}
	write("version: 1\nname: ci\ndescription: second version\nchannels: [{name: DEMOBANK, certificateFile: \"builtin:publisher-dev.crt\"}]\n")
	waitFor("second version")
	write("version: 1\nname: ci\nchannels: [\n")                                                                                                           // broken: refused
	write("version: 1\nname: ci\ndescription: third, after a broken edit\nchannels: [{name: DEMOBANK, certificateFile: \"builtin:publisher-dev.crt\"}]\n") // fixed again
	waitFor("third, after a broken edit")
}

// clause: SIM-3
// Every bad control input gets a clear 4xx in the control error shape.
func TestControl_SIM3_badInputsAreClear4xx(t *testing.T) {
	s := simtest.New(t)
	cases := []struct {
		method, path string
		body         any
		want         int
	}{
		{"POST", "/__sim/scenarios", map[string]any{"path": "/nonexistent/x.yaml"}, 400},
		{"POST", "/__sim/scenarios", map[string]any{"file": "x"}, 400},
		{"POST", "/__sim/scenarios/nope/activate", nil, 404},
		{"POST", "/__sim/scenarios/default/activate", map[string]any{"channel": "NOPE"}, 404},
		{"GET", "/__sim/scenarios/active?channel=NOPE", nil, 404},
		{"POST", "/__sim/channels", map[string]any{"name": "X"}, 400},
		{"POST", "/__sim/channels", map[string]any{"name": "X", "certificate": "not pem"}, 400},
		{"POST", "/__sim/channels", map[string]any{"name": "DEMOBANK", "certificate": string(testKeys()[0].certPEM)}, 409},
		{"POST", "/__sim/channels", map[string]any{"name": "X", "certificate": string(testKeys()[0].certPEM), "webhookUrl": "ftp://x"}, 400},
		{"DELETE", "/__sim/channels/NOPE", nil, 404},
		{"POST", "/__sim/state/reset", map[string]any{"channel": "NOPE"}, 404},
		{"POST", "/__sim/state/reset", map[string]any{"channel": 3}, 400},
		{"GET", "/__sim/state/users/NOPE/VU-1", nil, 404},
		{"POST", "/__sim/clock", map[string]any{"mode": "warp"}, 400},
		{"POST", "/__sim/clock", map[string]any{"time": "yesterday"}, 400},
		{"POST", "/__sim/clock", map[string]any{"mode": "real"}, 409}, // the harness clock is a frozen Fake
		{"POST", "/__sim/clock/advance", map[string]any{"by": "soon"}, 400},
		{"POST", "/__sim/clock/advance", nil, 400},
		{"POST", "/__sim/faults", map[string]any{"endpoint": "NoSuchOp", "action": map[string]any{"kind": "internal-error"}}, 400},
		{"POST", "/__sim/faults", map[string]any{"endpoint": "*", "action": map[string]any{"kind": "http-status"}}, 400},
		{"POST", "/__sim/faults", map[string]any{"endpoint": "*", "channel": "NOPE", "action": map[string]any{"kind": "internal-error"}}, 404},
		{"POST", "/__sim/faults", map[string]any{"endpoint": "*", "probability": 2, "action": map[string]any{"kind": "internal-error"}}, 400},
		{"DELETE", "/__sim/faults/nope", nil, 404},
		{"POST", "/__sim/webhooks", map[string]any{"channel": "DEMOBANK", "offerId": "O1", "reason": "BRAND_CALLED_OUT"}, 400}, // no webhook URL
		{"POST", "/__sim/webhooks", map[string]any{"channel": "NOPE", "offerId": "O1", "reason": "BRAND_CALLED_OUT"}, 404},
		{"POST", "/__sim/webhooks", map[string]any{"channel": "DEMOBANK", "offerId": "O1", "reason": "BORED"}, 400},
		{"POST", "/__sim/webhooks", map[string]any{"channel": "DEMOBANK", "offerId": "O1", "reason": "OUT_OF_STOCK", "expiredDate": "2026-01-15 10:00"}, 400},
		{"GET", "/__sim/webhooks/nope", nil, 404},
		{"GET", "/__sim/webhooks?channel=NOPE", nil, 404},
		{"GET", "/__sim/nothing-here", nil, 404},
	}
	for _, tc := range cases {
		st, out := ctl(t, s, tc.method, tc.path, tc.body)
		if st != tc.want {
			t.Errorf("%s %s %v: HTTP %d, want %d: %s", tc.method, tc.path, tc.body, st, tc.want, out)
		}
		var e struct{ Error string }
		if json.Unmarshal(out, &e) != nil || e.Error == "" {
			t.Errorf("%s %s: no error message: %s", tc.method, tc.path, out)
		}
	}
}

// clause: SIM-3
// With --control-token every control call but health needs the token.
func TestControl_SIM3_token(t *testing.T) {
	s := simtest.New(t, simtest.WithControl(sim.ControlOptions{Token: "s3cret"}))
	for _, tc := range []struct {
		path, token string
		want        int
	}{
		{"/__sim/health", "", 200},
		{"/__sim/clock", "", 401},
		{"/__sim/clock", "wrong", 401},
		{"/__sim/clock", "s3cret", 200},
		{"/__sim/certs/service.pem", "", 401},
		{"/__sim/faults", "s3cret", 200},
	} {
		var st int
		if tc.token == "" {
			st, _ = ctl(t, s, "GET", tc.path, nil)
		} else {
			st, _ = ctl(t, s, "GET", tc.path, nil, tc.token)
		}
		if st != tc.want {
			t.Errorf("GET %s with token %q: HTTP %d, want %d", tc.path, tc.token, st, tc.want)
		}
	}
}

// clause: SIM-3, AUTH-3
// A scenario activated for one channel governs that channel with that
// scenario's entry for it (its keys included), and lends nothing to the
// other channels it lists.
func TestControlScenarios_SIM3_perChannelGovernsOnlyItsChannel(t *testing.T) {
	s := simtest.New(t)
	activateFor(t, s, "other.yaml", "DEMOBANK", `version: 1
name: other
channels:
  - {name: DEMOBANK, certificateFile: "builtin:publisher-dev.crt", appKey: NEWAPP, secKey: NEWSEC}
  - {name: YBANK, certificateFile: "builtin:publisher-dev.crt", appKey: YAPP, secKey: YSEC}
offers:
  DEMOBANK: [{id: OFFER-X, title: X, coins: 100, stock: 10}]
  YBANK: [{id: OFFER-Y, title: Y, coins: 100, stock: 10}]
`)
	claim := func(c publisher.Client, offer string) error {
		_, err := c.FetchCouponCode(bg, publisher.CouponRequest{OfferID: offer, VirtualID: "VU-1", ChannelName: c.Channel, ExtTransactionID: "T-" + c.AppKey, CoinsUsed: "100"})
		return err
	}
	demoNew := *s.Client
	demoNew.AppKey, demoNew.SecKey = "NEWAPP", "NEWSEC"
	if err := claim(demoNew, "OFFER-X"); err != nil {
		t.Fatalf("DEMOBANK with its own scenario's keys, on its own scenario's offer: %v", err)
	}
	var ce *publisher.CouponError
	if err := claim(*s.Client, "OFFER-X"); !errorsAs(err, &ce) || ce.ErrorCode != "UNAUTHORIZED" {
		t.Fatalf("DEMOBANK with the default scenario's keys: %v, want UNAUTHORIZED", err)
	}
	y := *s.Client
	y.ChannelID, y.Channel, y.AppKey, y.SecKey = "YBANK", "YBANK", "YAPP", "YSEC"
	if err := claim(y, "OFFER-Y"); !errorsAs(err, &ce) || ce.ErrorCode != "UNAUTHORIZED" {
		t.Fatalf("YBANK, listed only by a scenario active for another channel: %v, want UNAUTHORIZED", err)
	}
}

// clause: SIM-3, SIM-4
// Control-API input edges: the last possible page number is an
// empty page (not the first page again), a scenario cannot be activated
// for a channel nobody knows, and a commit-then-delay rule needs a delay.
func TestControl_SIM3_inputEdges(t *testing.T) {
	s := simtest.New(t)
	if _, err := s.Client.ReferenceToken(bg); err != nil {
		t.Fatal(err)
	}
	var page struct{ Entries []json.RawMessage }
	decodeInto(t, ctlOKRaw(t, s, "/__sim/journal?after=18446744073709551615"), &page)
	if len(page.Entries) != 0 {
		t.Errorf("after the largest sequence number: %d entries, want none", len(page.Entries))
	}
	if st, out := ctl(t, s, "POST", "/__sim/scenarios?name=x.yaml&activate=true&channel=NOPE", `version: 1
name: x
channels: [{name: DEMOBANK, certificateFile: "builtin:publisher-dev.crt"}]
`); st != http.StatusNotFound {
		t.Errorf("activate an upload for an unknown channel: HTTP %d %s, want 404", st, out)
	}
	if st, out := ctl(t, s, "POST", "/__sim/faults", map[string]any{"endpoint": "fetchCouponCode", "action": map[string]any{"kind": "commit-then-delay"}}); st != http.StatusBadRequest {
		t.Errorf("commit-then-delay without a delay: HTTP %d %s, want 400", st, out)
	}
}
