package sim_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// A channel a test library made answers with everything a service under
// test needs to call as it (issue 39), and PATCH changes one setting
// without re-registering: the rest stays.
func TestChannels_getAndPatchKeepCredentialsFaultsAndClock(t *testing.T) {
	s := simtest.New(t)
	made := ctlOK(t, s, http.StatusCreated, "POST", "/__sim/channels", map[string]any{"name": "CI-P", "like": "DEMOBANK", "keyOrigin": "library"})
	for _, k := range []string{"appKey", "secKey", "certificate"} {
		if v, _ := made[k].(string); v == "" {
			t.Errorf("POST answer has no %s: %v", k, made)
		}
	}
	if made["keyOrigin"] != "library" {
		t.Errorf("keyOrigin not answered: %v", made)
	}
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{"id": "stays", "channel": "CI-P", "endpoint": "fetchCouponCode", "action": map[string]any{"kind": "coupon-error", "errorCode": "COUPON_EXHAUSTED"}})
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/clock/advance", map[string]any{"by": "31m", "channel": "CI-P"})
	before := ctlOK(t, s, http.StatusOK, "GET", "/__sim/clock?channel=CI-P", nil)
	if before["own"] != true || !strings.Contains(before["now"].(string), "T10:31:00") {
		t.Fatalf("the channel's own clock did not move: %v", before)
	}

	got := ctlOK(t, s, http.StatusOK, "PATCH", "/__sim/channels/CI-P", map[string]any{"webhookUrl": "http://127.0.0.1:9/hooks"})
	if got["webhookUrl"] != "http://127.0.0.1:9/hooks" || got["certificate"] != made["certificate"] || got["appKey"] != made["appKey"] || got["keyOrigin"] != "library" {
		t.Fatalf("PATCH changed more than the webhook URL: %v, was %v", got, made)
	}
	if again := ctlOK(t, s, http.StatusOK, "GET", "/__sim/channels/CI-P", nil); again["webhookUrl"] != got["webhookUrl"] || again["certificate"] != got["certificate"] {
		t.Fatalf("GET after PATCH: %v", again)
	}
	if _, out := ctl(t, s, "GET", "/__sim/faults", nil); !strings.Contains(string(out), `"id":"stays"`) {
		t.Errorf("the channel's fault went with the PATCH: %s", out)
	}
	if after := ctlOK(t, s, http.StatusOK, "GET", "/__sim/clock?channel=CI-P", nil); after["own"] != true || after["now"] != before["now"] {
		t.Errorf("the channel's clock went with the PATCH: %v, was %v", after, before)
	}
	if demo := ctlOK(t, s, http.StatusOK, "GET", "/__sim/channels/DEMOBANK", nil); demo["source"] != "scenario" || demo["certificate"] == "" {
		t.Errorf("GET of a scenario's channel: %v", demo)
	}

	for _, tc := range []struct {
		name, path string
		body       any
		want       int
		says       string
	}{
		{"unknown channel", "/__sim/channels/NOPE", map[string]any{"webhookUrl": "http://127.0.0.1:9/"}, http.StatusNotFound, `no channel named \"NOPE\"`},
		{"a scenario's channel", "/__sim/channels/DEMOBANK", map[string]any{"webhookUrl": "http://127.0.0.1:9/"}, http.StatusConflict, "comes from a scenario"},
		{"an unknown setting", "/__sim/channels/CI-P", map[string]any{"name": "OTHER"}, http.StatusBadRequest, "control.channel.patch"},
		{"nothing to change", "/__sim/channels/CI-P", map[string]any{}, http.StatusBadRequest, "control.channel.patch"},
		{"not a certificate", "/__sim/channels/CI-P", map[string]any{"certificate": "nope"}, http.StatusBadRequest, "certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, out := ctl(t, s, "PATCH", tc.path, tc.body)
			if st != tc.want || !strings.Contains(string(out), tc.says) {
				t.Fatalf("HTTP %d %s, want %d saying %q", st, out, tc.want, tc.says)
			}
		})
	}
	if st, _ := ctl(t, s, "GET", "/__sim/channels/NOPE", nil); st != http.StatusNotFound {
		t.Errorf("GET of an unknown channel: HTTP %d", st)
	}
}

// ENV-4: a service that signs with its own key on a channel whose key a
// test library made gets the bare failure, and the reason says why.
func TestChannels_ENV4_libraryKeyMismatchSaysHowToHandTheKeyOver(t *testing.T) {
	s := simtest.New(t)
	kp := testKeys()
	for _, tc := range []struct {
		origin string
		hint   bool
	}{{"library", true}, {"", false}} {
		name := "CI-K" + tc.origin
		body := map[string]any{"name": name, "certificate": string(kp[0].certPEM)}
		if tc.origin != "" {
			body["keyOrigin"] = tc.origin
		}
		ctlOK(t, s, http.StatusCreated, "POST", "/__sim/channels", body)
		other, err := publisher.ParsePrivateKeyPEM(kp[1].keyPEM)
		if err != nil {
			t.Fatal(err)
		}
		c := *s.Client
		c.ChannelID, c.Channel, c.Key = name, name, other
		res, err := c.CallSigned(bg, s.RewardsURL+"/api/getSecuredReferenceToken", "", map[string]string{"bName": name})
		if err == nil || res == nil {
			t.Fatalf("%s: a signature by another key passed: %v", name, err)
		}
		reason := res.Header.Get("X-Rewardsim-Reason")
		if !strings.Contains(reason, "SIGN does not verify") || strings.Contains(reason, "made by the test library") != tc.hint {
			t.Errorf("%s: reason %q (hint wanted: %v)", name, reason, tc.hint)
		}
	}
}
