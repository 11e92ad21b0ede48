package sim_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/simtest"
)

// The last sweep reported (docs/sweep.md): 404 before one, a body that
// is no sweep.json refused in the control API's shape, then kept and
// served as JSON and as the matrix page the dashboard shows.
func TestSweepsLast(t *testing.T) {
	s := simtest.New(t)
	if st, out := ctl(t, s, "GET", "/__sim/sweeps/last", nil); st != http.StatusNotFound || !strings.Contains(string(out), "no sweep has reported") {
		t.Fatalf("before any sweep: HTTP %d %s", st, out)
	}
	if dash := string(ctlOKRaw(t, s, "/__sim/dashboard")); strings.Contains(dash, `id="slot-sweep"`) {
		t.Fatal("the dashboard shows a last sweep before any reported")
	}
	if st, out := ctl(t, s, "POST", "/__sim/sweeps/last", map[string]any{"version": 1}); st != http.StatusBadRequest || !strings.Contains(string(out), "schemas/sweep.json") {
		t.Fatalf("a body that is no sweep.json: HTTP %d %s", st, out)
	}
	row := map[string]any{"id": "fetchCouponCode/commit-then-drop/first", "endpoint": "fetchCouponCode", "kind": "commit-then-drop", "when": "first",
		"action": map[string]any{"kind": "commit-then-drop"}, "channel": "SWEEP-1-001", "grade": "unsafe", "exit": 0, "fired": 1,
		"exchanges": 3, "deliveries": 2, "findings": []any{}, "seconds": 0.1, "diagram": "runs/001/sequence.svg"}
	base := map[string]any{"id": "baseline", "endpoint": "", "kind": "", "when": "", "channel": "SWEEP-1-000", "grade": "handled",
		"exit": 0, "fired": 0, "exchanges": 2, "deliveries": 1, "findings": []any{}, "seconds": 0.1}
	sweep := map[string]any{"version": 1, "command": []string{"go", "test"}, "like": "DEMOBANK", "when": "first", "parallel": 1,
		"failOn": "unsafe", "started": "2026-01-15T10:00:00Z", "seconds": 0.5, "called": []string{"fetchCouponCode"},
		"baseline": base, "rows": []any{row}, "totals": map[string]int{"unsafe": 1}, "failed": true}
	ctlOK(t, s, http.StatusNoContent, "POST", "/__sim/sweeps/last", sweep)
	got := ctlOK(t, s, http.StatusOK, "GET", "/__sim/sweeps/last", nil)
	if got["failed"] != true || len(got["rows"].([]any)) != 1 {
		t.Fatalf("last sweep = %v", got)
	}
	page := string(ctlOKRaw(t, s, "/__sim/sweeps/last.html"))
	if !strings.Contains(page, `class="m unsafe"`) || !strings.Contains(page, "fetchCouponCode") || strings.Contains(page, "runs/001") {
		t.Fatalf("the page shows the matrix without links to the sweeping machine's files:\n%s", page)
	}
	// The dashboard shows the last sweep: its grades and a link to the matrix.
	dash := string(ctlOKRaw(t, s, "/__sim/dashboard"))
	for _, want := range []string{`id="slot-sweep"`, `data-grade="unsafe"`, "unsafe 1", `href="/__sim/sweeps/last.html"`, "go test", "failed"} {
		if !strings.Contains(dash, want) {
			t.Errorf("the dashboard's last sweep lacks %q", want)
		}
	}
}
