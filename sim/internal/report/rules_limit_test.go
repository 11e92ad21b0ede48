package report

import (
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
)

// claimAt is a fetchCouponCode of user vu at t0 plus ms milliseconds;
// refusedAfter > 0 makes it a refusal by the channel's limit saying
// Retry-After that many seconds (-1: a refusal saying none).
func claimAt(ms int, vu string, refusedAfter int) journal.Entry {
	e := ex("/api/fetchCouponCode", 0, func(e *journal.Entry) {
		e.Endpoint, e.VirtualID = "fetchCouponCode", vu
		e.At = t0.Add(time.Duration(ms) * time.Millisecond)
	})
	if refusedAfter != 0 {
		e.Status, e.Fault = 503, "limit"
		e.Limit = &journal.Limit{Refused: true, Reason: "rate"}
		if refusedAfter > 0 {
			e.Response.Header = map[string]string{"Retry-After": string(rune('0' + refusedAfter))}
		}
	}
	return e
}

// clause: CAP-1
// The capacity-limit rules: a retry sooner than Retry-After, and a
// refusal never retried; what honours them gives no finding.
func TestReport_limitRules(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []journal.Entry
		want    map[string]int
	}{
		{"retried after Retry-After", []journal.Entry{claimAt(0, "VU-1", 2), claimAt(2500, "VU-1", 0)}, map[string]int{}},
		{"retried too soon", []journal.Entry{claimAt(0, "VU-1", 2), claimAt(300, "VU-1", 0)},
			map[string]int{"limit-retry-after-ignored": 1}},
		{"retried too soon, refused again, then never", []journal.Entry{claimAt(0, "VU-1", 2), claimAt(300, "VU-1", 2), claimAt(400, "VU-2", 0)},
			map[string]int{"limit-retry-after-ignored": 1, "limit-refusal-not-retried": 1}},
		{"a refusal saying no Retry-After, retried at once", []journal.Entry{claimAt(0, "VU-1", -1), claimAt(10, "VU-1", 0)}, map[string]int{}},
		{"a frozen clock: the same time is not judged", []journal.Entry{claimAt(0, "VU-1", 2), claimAt(0, "VU-1", 0)}, map[string]int{}},
		{"never retried", []journal.Entry{claimAt(0, "VU-1", 1), claimAt(0, "VU-2", 1), claimAt(5, "VU-3", 0)},
			map[string]int{"limit-refusal-not-retried": 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Build(tc.entries, Options{})
			got := map[string]int{}
			for _, f := range r.Findings {
				got[f.ID] = f.Count
				if f.Clause != "CAP-1" || f.Reading == "" {
					t.Errorf("finding %s: clause %s, reading %q", f.ID, f.Clause, f.Reading)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("findings %v, want %v", got, tc.want)
			}
			for id, n := range tc.want {
				if got[id] != n {
					t.Errorf("findings %v, want %v", got, tc.want)
				}
			}
		})
	}
}
