package sim_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/simtest"
)

// A channel made like another copies its run-time fault rules too (with
// counters of their own), so a test class's channel made like a sweep
// run's channel (REWARDSIM_LIKE, docs/sweep.md) meets the run's fault; a
// third channel made like the original's template does not.
func TestChannels_likeCopiesRuntimeFaults(t *testing.T) {
	s := simtest.New(t)
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/channels", map[string]any{"name": "RUN-1", "like": "DEMOBANK"})
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{
		"id": "RUN-1", "endpoint": "fetchCouponCode", "channel": "RUN-1", "times": 1, "action": map[string]any{"kind": "internal-error"},
	})
	made := ctlOK(t, s, http.StatusCreated, "POST", "/__sim/channels", map[string]any{"name": "CLASS-A", "like": "RUN-1"})
	faults, _ := made["copied"].(map[string]any)["faults"].([]any)
	if !containsAny(faults, "RUN-1~CLASS-A") {
		t.Fatalf("copied = %v, want the run-time rule RUN-1~CLASS-A among the faults", made["copied"])
	}
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/channels", map[string]any{"name": "OTHER", "like": "DEMOBANK"})
	rules := ctlOK(t, s, http.StatusOK, "GET", "/__sim/faults", nil)["rules"].([]any)
	bound := map[string]string{}
	for _, r := range rules {
		m := r.(map[string]any)
		bound[m["id"].(string)] = m["channel"].(string)
		if m["fired"] != 0.0 {
			t.Errorf("rule %v: a copy starts with counters of its own", m)
		}
	}
	if len(bound) != 2 || bound["RUN-1"] != "RUN-1" || bound["RUN-1~CLASS-A"] != "CLASS-A" {
		t.Fatalf("rules bound %v, want RUN-1 and its copy on CLASS-A only", bound)
	}
}

func containsAny(xs []any, want string) bool {
	for _, x := range xs {
		if x == want {
			return true
		}
	}
	return false
}

// Issue 50, item 11: a channel made like another copies its
// configuration, not what the original has used up: a spent one-shot
// rule and an nth rule past its call are not armed again on the copy (a
// copy once fired the original's spent rules), nor is a story's rule (a
// story is applied to one channel). A live rule is copied with counters
// at zero, and the copy's verify counts from zero.
func TestChannels_likeCopiesNoSpentRules(t *testing.T) {
	s := simtest.New(t)
	ctx := context.Background()
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/channels", map[string]any{"name": "ORIG", "like": "DEMOBANK"})
	for _, r := range []map[string]any{
		{"id": "SPENT", "endpoint": "getSecuredReferenceToken", "channel": "ORIG", "times": 1, "action": map[string]any{"kind": "internal-error"}},
		{"id": "PAST", "endpoint": "GenerateSessionInfoV2", "channel": "ORIG", "nth": 1, "action": map[string]any{"kind": "internal-error"}},
		{"id": "LIVE", "endpoint": "fetchCouponCode", "channel": "ORIG", "times": 1, "action": map[string]any{"kind": "internal-error"}},
	} {
		ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", r)
	}
	orig := *s.Client
	orig.Channel, orig.ChannelID = "ORIG", "ORIG"
	if _, err := orig.ReferenceToken(ctx); err == nil {
		t.Fatal("the one-shot rule did not fire on the original")
	}
	if _, err := orig.Session(ctx, "VU-1"); err == nil {
		t.Fatal("the nth rule did not fire on the original")
	}
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/stories/slow-partner/apply?channel=ORIG", nil)

	made := ctlOK(t, s, http.StatusCreated, "POST", "/__sim/channels", map[string]any{"name": "COPY", "like": "ORIG"})
	var copiedRuntime []string
	for _, id := range made["copied"].(map[string]any)["faults"].([]any) {
		if strings.HasSuffix(id.(string), "~COPY") {
			copiedRuntime = append(copiedRuntime, id.(string))
		}
	}
	if !slices.Equal(copiedRuntime, []string{"LIVE~COPY"}) {
		t.Errorf("copied run-time rules %v, want only the live one [LIVE~COPY]", copiedRuntime)
	}
	for _, r := range ctlOK(t, s, http.StatusOK, "GET", "/__sim/faults", nil)["rules"].([]any) {
		m := r.(map[string]any)
		if m["channel"] == "COPY" && (m["id"] != "LIVE~COPY" || m["seen"] != 0.0 || m["fired"] != 0.0 || m["spent"] != false) {
			t.Errorf("rule on the copy %v, want only LIVE~COPY with counters at zero", m)
		}
	}
	stories := ctlOK(t, s, http.StatusOK, "GET", "/__sim/stories", nil)["applied"].(map[string]any)
	if _, ok := stories["COPY"]; ok {
		t.Errorf("stories applied %v: the copy has the original's story", stories)
	}

	cp := *s.Client
	cp.Channel, cp.ChannelID = "COPY", "COPY"
	s.Verify(t, "COPY", simtest.Verification{Endpoint: "getSecuredReferenceToken", Count: simtest.Never()})
	if _, err := cp.ReferenceToken(ctx); err != nil {
		t.Errorf("the copy's call was faulted by the original's spent one-shot rule: %v", err)
	}
	if _, err := cp.Session(ctx, "VU-1"); err != nil {
		t.Errorf("the copy's call was faulted by the original's nth rule past its call: %v", err)
	}
	s.Verify(t, "COPY", simtest.Verification{Endpoint: "getSecuredReferenceToken", Count: simtest.Times(1)})
}
