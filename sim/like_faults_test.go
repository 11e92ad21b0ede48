package sim_test

import (
	"net/http"
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
