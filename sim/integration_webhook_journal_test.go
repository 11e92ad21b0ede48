package sim_test

import (
	"net/http"
	"testing"

	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: WH-2, SIM-4, SIM-6
// A webhook attempt is journaled beside the exchanges, and a receiver that
// does not answer {"status":"OK"} is a finding of the conformance report.
func TestWebhookAttemptsJournaledAndReported_WH2(t *testing.T) {
	s := simtest.New(t)
	rc := newReceiver(t, answerNotOK)
	registerChannel(t, s, "CIW", 0, rc.URL)
	schedule(t, s, map[string]any{"channel": "CIW", "offerId": "O1", "reason": "OUT_OF_STOCK", "retry": map[string]any{"kind": "none"}})
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/webhooks/run", nil)
	if len(rc.got()) != 1 {
		t.Fatalf("receiver got %d pushes, want 1", len(rc.got()))
	}
	// Journal queries flush the background writer first, so no wait is needed.
	p := journal(t, s, "kind=webhook&channel=CIW")
	if len(p.Entries) != 1 || p.Entries[0].Path != rc.URL || p.Entries[0].Status != http.StatusOK {
		t.Fatalf("journaled webhook attempts = %+v, want one POST to %s", p.Entries, rc.URL)
	}

	var rep struct {
		Findings []struct {
			ID, Clause, Severity string
			Count                int
		}
	}
	if st := controlJSON(t, s, "/__sim/report?channel=CIW", "report", &rep); st != http.StatusOK {
		t.Fatalf("report: HTTP %d", st)
	}
	found := false
	for _, f := range rep.Findings {
		if f.Clause == "WH-2" && f.Count == 1 {
			found = true
		}
	}
	if !found {
		t.Fatalf("report findings = %+v, want a WH-2 finding for the non-OK receiver", rep.Findings)
	}
}
