package sim_test

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/scenarios"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: CPN-4, SIM-2
// A one-shot commit kind (commit-then-delay, commit-then-drop) is not spent
// by a claim the domain refused: nothing was committed, so there is nothing
// to withhold. That claim is answered at once, its journal entry names no
// fault, the rule's counters stay at zero, and the next claim that commits
// is the one withheld, counted and journaled. Every refusal of a claim.
func TestFault_oneShotCommitKindIsNotSpentByARefusal(t *testing.T) {
	ctx := context.Background()
	claim := func(c *publisher.Client, offer, user, ext, coins string) error {
		_, err := c.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: offer, VirtualID: user, ExtTransactionID: ext, CoinsUsed: coins})
		return err
	}
	refusals := []struct {
		name, code string
		before     func(c *publisher.Client) // run before the rule is added
		refused    func(c *publisher.Client) error
	}{
		{"unknown offer", "INVALID_OFFER", nil, func(c *publisher.Client) error { return claim(c, "OFFER-NOPE", "VU-R", "R-1", "100") }},
		{"inactive offer", "INVALID_OFFER", nil, func(c *publisher.Client) error { return claim(c, "OFFER-RETIRED", "VU-R", "R-1", "50") }},
		{"wrong price", "INVALID_REQUEST", nil, func(c *publisher.Client) error { return claim(c, "OFFER-DEMO", "VU-R", "R-1", "99") }},
		{"not targeted", "NON_ELIGIBLE", nil, func(c *publisher.Client) error { return claim(c, "OFFER-VIP", "VU-R", "R-1", "500") }},
		{"purchase limit", "MAX_LIMIT_REACHED",
			func(c *publisher.Client) {
				_ = claim(c, "OFFER-DEMO", "VU-R", "P-1", "100")
				_ = claim(c, "OFFER-DEMO", "VU-R", "P-2", "100")
			},
			func(c *publisher.Client) error { return claim(c, "OFFER-DEMO", "VU-R", "P-3", "100") }},
		{"stock exhausted", "COUPON_EXHAUSTED",
			func(c *publisher.Client) {
				for _, u := range []string{"VIP-1", "VIP-2", "VIP-3"} {
					_ = claim(c, "OFFER-VIP", u, "X-"+u, "500")
				}
			},
			func(c *publisher.Client) error { return claim(c, "OFFER-VIP", "VIP-4", "X-VIP-4", "500") }},
		{"transaction of another user", "DUPLICATE_TRANSACTION",
			func(c *publisher.Client) { _ = claim(c, "OFFER-DEMO", "VU-A", "D-1", "100") },
			func(c *publisher.Client) error { return claim(c, "OFFER-DEMO", "VU-B", "D-1", "100") }},
	}
	const delay = 150 * time.Millisecond
	def, err := fs.ReadFile(scenarios.FS, scenarios.Default)
	if err != nil {
		t.Fatal(err)
	}
	refusing := strings.Replace(string(def), "coinsMismatch: accept", "coinsMismatch: refuse", 1) // a wrong price refused too
	for _, kind := range []string{fault.CommitThenDelay, fault.CommitThenDrop} {
		for _, r := range refusals {
			t.Run(kind+"/"+r.name, func(t *testing.T) {
				s := simtest.New(t, simtest.WithScenarioYAML(refusing))
				if r.before != nil {
					r.before(s.Client)
				}
				ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{"id": "one", "endpoint": "fetchCouponCode", "times": 1,
					"action": map[string]any{"kind": kind, "delay": delay.String()}})

				start := time.Now()
				err := r.refused(s.Client)
				var ce *publisher.CouponError
				if !errors.As(err, &ce) || ce.ErrorCode != r.code {
					t.Fatalf("refused claim: %v, want %s", err, r.code)
				}
				if took := time.Since(start); took >= delay {
					t.Errorf("the refused claim was answered after %v: a refusal commits nothing to withhold", took)
				}
				faultCounters(t, s.ControlURL, "one", 0, false)
				if f := lastFault(t, s, "fetchCouponCode", ""); f != "" {
					t.Errorf("the refused claim's journal entry names fault %q", f)
				}

				start = time.Now()
				err = claim(s.Client, "OFFER-DEMO", "VU-NEXT", "N-1", "100")
				switch kind {
				case fault.CommitThenDrop:
					if err == nil {
						t.Fatal("the next claim was answered: the one-shot drop was spent by the refusal")
					}
				default:
					if err != nil || time.Since(start) < delay {
						t.Fatalf("the next claim: %v after %v, want a coupon after %v", err, time.Since(start), delay)
					}
				}
				if f := lastFault(t, s, "fetchCouponCode", "VU-NEXT"); f != kind {
					t.Errorf("the withheld claim's journal entry names fault %q, want %q", f, kind)
				}
				faultCounters(t, s.ControlURL, "one", 1, true) // settled before the entry is queued
			})
		}
	}
}

// lastFault is the fault named by the newest journal entry of endpoint
// (for user, if given), waited for (bounded): a dropped client hears the
// drop before the entry is queued.
func lastFault(t *testing.T, s *simtest.Server, endpoint, user string) string {
	t.Helper()
	q := "endpoint=" + endpoint
	if user != "" {
		q += "&virtualId=" + user
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if p := journal(t, s, q); len(p.Entries) > 0 {
			return p.Entries[len(p.Entries)-1].Fault
		}
		if time.Now().After(deadline) {
			t.Fatalf("no journal entry for %s", q)
		}
	}
}
