package sim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/controlplane"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// GET /__sim/faults?active=true lists only the rules that can still
// fire, and spent one-shot rules do not pile up: beyond
// controlplane.MaxSpentRules, adding a rule drops the oldest spent ones,
// while the journal keeps the faults they showed (issue 52, item 3).
func TestFaults_activeOnlyAndSpentRulesAgeOut(t *testing.T) {
	s := simtest.New(t)
	ctx := context.Background()
	n := controlplane.MaxSpentRules + 2
	for i := 1; i <= n; i++ {
		ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{"id": fmt.Sprintf("spent-%02d", i), "endpoint": "fetchCouponCode", "times": 1,
			"action": map[string]any{"kind": "coupon-error", "errorCode": "COUPON_EXHAUSTED"}})
	}
	for i := 1; i <= n; i++ {
		if _, err := s.Client.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-A", ExtTransactionID: fmt.Sprintf("TX-A%d", i), CoinsUsed: "100"}); err == nil {
			t.Fatalf("claim %d was served: a one-shot rule should have fired", i)
		}
	}
	rules := func(q string) []fault.Status {
		t.Helper()
		var l struct{ Rules []fault.Status }
		if err := json.Unmarshal(ctlOKRaw(t, s, "/__sim/faults"+q), &l); err != nil {
			t.Fatal(err)
		}
		return l.Rules
	}
	if got := rules("?active=true"); len(got) != 0 {
		t.Errorf("?active=true lists %d rules, all spent: %v", len(got), got)
	}
	if got := rules(""); len(got) != n {
		t.Errorf("the full list has %d rules, want the %d spent ones until a rule is added", len(got), n)
	}
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{"id": "live", "endpoint": "GetAuthToken", "action": map[string]any{"kind": "internal-error"}})
	all := rules("")
	var ids []string
	for _, r := range all {
		ids = append(ids, r.ID)
	}
	if len(all) != controlplane.MaxSpentRules+1 || strings.Contains(strings.Join(ids, " "), "spent-01") || strings.Contains(strings.Join(ids, " "), "spent-02") || ids[len(ids)-1] != "live" {
		t.Errorf("after adding a rule the list is %v: want the newest %d spent ones and live", ids, controlplane.MaxSpentRules)
	}
	if active := rules("?active=true"); len(active) != 1 || active[0].ID != "live" {
		t.Errorf("?active=true lists %v, want live only", active)
	}
	var j struct{ Entries []struct{ Fault string } }
	if err := json.Unmarshal(ctlOKRaw(t, s, "/__sim/journal?endpoint=fetchCouponCode&limit=100"), &j); err != nil {
		t.Fatal(err)
	}
	if len(j.Entries) != n || j.Entries[0].Fault == "" {
		t.Errorf("the journal keeps %d claims (want %d), the first naming fault %q", len(j.Entries), n, j.Entries[0].Fault)
	}
	if st, out := ctl(t, s, "GET", "/__sim/faults?active=maybe", nil); st != http.StatusBadRequest || !strings.Contains(string(out), "not true or false") {
		t.Errorf("?active=maybe: HTTP %d %s, want 400", st, out)
	}
}
