package sim_test

import (
	"net/http"
	"testing"

	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: SIM-6, TRK-1
// Issue 50, item 9: GET /__sim/report?noCardsRendered=true leaves TRK-1's
// rule out and says so under skipped, in report.json's shape; a value
// other than true or false is 400.
func TestReport_SIM6_noCardsRenderedQuery(t *testing.T) {
	s := simtest.New(t)
	for _, tc := range []struct {
		query   string
		skipped int
	}{{"", 0}, {"?noCardsRendered=false", 0}, {"?noCardsRendered=true", 1}} {
		out := ctlOKRaw(t, s, "/__sim/report"+tc.query)
		if err := controlSchemas().ValidateJSON("report", out); err != nil {
			t.Fatalf("%s: answer outside report.json: %v: %s", tc.query, err, out)
		}
		var r struct{ Skipped []struct{ ID string } }
		decodeInto(t, out, &r)
		if len(r.Skipped) != tc.skipped {
			t.Errorf("report%s: skipped %+v, want %d", tc.query, r.Skipped, tc.skipped)
		}
	}
	ctlOK(t, s, http.StatusBadRequest, "GET", "/__sim/report?noCardsRendered=yes", nil)
}
