package sim_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: SIM-4, SIM-3, CPN-4
// Every fault kind that fires is named on its journal entry, on every
// host, whatever the answer (none, for a drop): a dropped connection is
// journaled as a drop with status 0, never as an answered 200.
func TestJournal_SIM4_namesEveryFaultOnEveryHost(t *testing.T) {
	ctx := context.Background()
	calls := map[string]func(c *publisher.Client) error{
		"getSecuredReferenceToken": func(c *publisher.Client) error { _, err := c.ReferenceToken(ctx); return err },
		"GenerateSessionInfoV2":    func(c *publisher.Client) error { _, err := c.Session(ctx, "VU-1"); return err },
		"GetReward": func(c *publisher.Client) error {
			ref, err := c.ReferenceToken(ctx)
			if err != nil {
				return err
			}
			amount := 100.0
			_, _, err = c.GetReward(ctx, ref.ReferenceKey, publisher.GetRewardRequest{ChannelName: "DEMOBANK", VirtualID: "VU-1", TriggerEventType: "UPI", ExtTransactionID: "TX-F", Amount: &amount, DateAndTime: "15012026100000"})
			return err
		},
		"fetchCouponCode": func(c *publisher.Client) error {
			_, err := c.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-1", ExtTransactionID: "TX-F", CoinsUsed: "100"})
			return err
		},
	}
	generic := []map[string]any{
		{"kind": "http-status", "status": 503}, {"kind": "drop-connection"}, {"kind": "delay", "delay": "1ms"}, {"kind": "internal-error"},
	}
	type tc struct {
		endpoint string
		action   map[string]any
	}
	var cases []tc
	for ep := range calls {
		for _, a := range generic {
			cases = append(cases, tc{ep, a})
		}
	}
	cases = append(cases, tc{"fetchCouponCode", map[string]any{"kind": "commit-then-drop"}}, tc{"fetchCouponCode", map[string]any{"kind": "commit-then-delay", "delay": "1ms"}})
	for _, c := range cases {
		kind := c.action["kind"].(string)
		t.Run(c.endpoint+"/"+kind, func(t *testing.T) {
			s := simtest.New(t)
			ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{"endpoint": c.endpoint, "times": 1, "action": c.action})
			_ = calls[c.endpoint](s.Client) // the answer is the fault's; the journal is under test
			// A dropped client hears the drop before the handler returns
			// and the entry is queued: wait for it, bounded.
			p := journal(t, s, "endpoint="+c.endpoint)
			for deadline := time.Now().Add(10 * time.Second); len(p.Entries) == 0 && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
				p = journal(t, s, "endpoint="+c.endpoint)
			}
			if len(p.Entries) == 0 {
				t.Fatalf("no %s entry", c.endpoint)
			}
			e := p.Entries[len(p.Entries)-1]
			if e.Fault != kind {
				t.Errorf("fault journaled %q, want %q (status %d, reason %q)", e.Fault, kind, e.Status, e.Reason)
			}
			drop := kind == "drop-connection" || kind == "commit-then-drop"
			if e.Dropped != drop || (drop && e.Status != 0) || e.ClientGone {
				t.Errorf("dropped %v status %d clientGone %v, want dropped %v (status 0 when dropped)", e.Dropped, e.Status, e.ClientGone, drop)
			}
		})
	}
}

// clause: CPN-4, REV-2, SIM-6
// A claim whose connection was dropped after commit and then retried with
// a new extTransactionId is flagged (CPN-4 fires on drops as on
// timeouts); a second reveal of one card is flagged (REV-2).
func TestReport_CPN4_REV2_dropRetryAndSecondReveal(t *testing.T) {
	ctx := context.Background()
	s := simtest.New(t, changedScenario(t, "faults:\n", "faults:\n  - {endpoint: fetchCouponCode, virtualId: VU-DROP, times: 1, action: {kind: commit-then-drop}}\n"))
	claim := func(tx string) error {
		_, err := s.Client.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-DROP", ExtTransactionID: tx, CoinsUsed: "100"})
		return err
	}
	if err := claim("TX-D1"); err == nil {
		t.Fatal("the dropped claim was answered")
	}
	// The server journals the dropped claim once its handler returns,
	// which can be after the client saw the connection close: wait for
	// it, so the retry is journaled after it (a real retry waits too).
	for deadline := time.Now().Add(5 * time.Second); len(journal(t, s, "endpoint=fetchCouponCode").Entries) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the dropped claim was never journaled")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := claim("TX-D2"); err != nil {
		t.Fatal(err)
	}
	ref, user := tokens(t, s.Client)
	card := cardsFor(t, s.Client, ref, "VU-1", 1)[0]
	for i := 0; i < 2; i++ {
		_, _, _ = s.Client.FetchRewardInfo(ctx, user, "VU-1", card.RewardID)
	}
	r := report(t, s, "channel=DEMOBANK")
	found := map[string]string{}
	for _, f := range r.Findings {
		found[f.ID] = f.Clause + " " + f.Example.Detail
	}
	if found["retry-with-new-ext-transaction-id"] == "" || found["second-reveal"] == "" {
		t.Fatalf("findings %v lack the dropped claim's retry or the second reveal", found)
	}
}
