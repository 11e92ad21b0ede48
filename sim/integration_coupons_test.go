package sim_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// These tests prove what only the coupon and control-plane areas together
// can: a fired push invalidates real delivered coupons, control-API faults
// reach the coupon host, a per-channel reset covers coupons, and the
// state read shows them.

// clause: WH-4, CPN-9
func TestWebhookInvalidatesDeliveredCoupons_WH4(t *testing.T) {
	rc := newReceiver(t, answerOK)
	s := simtest.New(t, simtest.WithScenarioYAML(`version: 1
name: wh4
channels:
  - name: DEMOBANK
    certificateFile: builtin:publisher-dev.crt
    appKey: DEMOAPPKEY
    secKey: DEMOSECKEY
    webhookUrl: `+rc.URL+`
offers:
  DEMOBANK:
    - {id: OFF-A, title: A, coins: 100, stock: 100}
    - {id: OFF-B, title: B, coins: 100, stock: 100}
`))
	for _, c := range []publisher.CouponRequest{claim("OFF-A", "VU-1", "TX1"), claim("OFF-A", "VU-2", "TX2"), claim("OFF-B", "VU-1", "TX3")} {
		if _, err := s.Client.FetchCouponCode(bg, c); err != nil {
			t.Fatalf("claim %+v: %v", c, err)
		}
	}
	schedule(t, s, map[string]any{"channel": "DEMOBANK", "offerId": "OFF-A", "reason": "OUT_OF_STOCK", "expiredDate": "2026-01-15T11:00:00+05:30"})
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/webhooks/run", nil)
	if len(rc.got()) != 1 {
		t.Fatalf("receiver got %d pushes, want 1", len(rc.got()))
	}

	state := func(user, offer string) string {
		cs, err := s.Client.UserCoupons(bg, user, offer)
		if err != nil || len(cs) != 1 {
			t.Fatalf("getUserCoupons %s %s: %v %v", user, offer, cs, err)
		}
		return cs[0].State + "/" + cs[0].Reason
	}
	// Before expiredDate the coupons are still delivered.
	if got := state("VU-1", "OFF-A"); got != "delivered/" {
		t.Fatalf("before expiredDate: %s", got)
	}
	advance(t, s, "1h")
	for _, c := range []struct{ user, offer, want string }{
		{"VU-1", "OFF-A", "invalidated/OUT_OF_STOCK"},
		{"VU-2", "OFF-A", "invalidated/OUT_OF_STOCK"}, // offer granularity: every user's coupon
		{"VU-1", "OFF-B", "delivered/"},               // another offer is untouched
	} {
		if got := state(c.user, c.offer); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.user, c.offer, got, c.want)
		}
	}
}

// clause: SIM-3, CPN-3 (a control-API fault reaches fetchCouponCode)
func TestControlFaultReachesCouponHost_SIM3(t *testing.T) {
	s := simtest.New(t)
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{
		"id": "ie", "endpoint": "fetchCouponCode", "virtualId": "VU-9", "times": 1, "action": map[string]any{"kind": "internal-error"},
	})
	_, err := s.Client.FetchCouponCode(bg, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-9", ChannelName: "DEMOBANK", ExtTransactionID: "T1", CoinsUsed: "100"})
	var ce *publisher.CouponError
	if !errorsAs(err, &ce) || ce.ErrorCode != "INTERNAL_ERROR" {
		t.Fatalf("first claim: %v, want INTERNAL_ERROR from the control-API rule", err)
	}
	if _, err := s.Client.FetchCouponCode(bg, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-9", ChannelName: "DEMOBANK", ExtTransactionID: "T1", CoinsUsed: "100"}); err != nil {
		t.Fatalf("retry with the same extTransactionId after the one-shot rule: %v", err)
	}
}

// clause: SIM-2 (a per-channel reset covers coupons), CPN-9
func TestResetAndReadCoupons_SIM2(t *testing.T) {
	s := simtest.New(t)
	registerChannel(t, s, "CIX", 1, "")
	if _, err := s.Client.FetchCouponCode(bg, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-1", ChannelName: "DEMOBANK", ExtTransactionID: "T1", CoinsUsed: "100"}); err != nil {
		t.Fatal(err)
	}
	user := ctlOK(t, s, http.StatusOK, "GET", "/__sim/state/users/DEMOBANK/VU-1", nil)
	if cs, _ := user["coupons"].([]any); len(cs) != 1 {
		t.Fatalf("state read: coupons = %v, want 1", user["coupons"])
	}
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/state/reset", map[string]any{"channel": "CIX"})
	if cs, _ := s.Client.UserCoupons(bg, "VU-1", "OFFER-DEMO"); len(cs) != 1 {
		t.Fatalf("resetting another channel touched DEMOBANK's coupons: %v", cs)
	}
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/state/reset", map[string]any{"channel": "DEMOBANK"})
	if cs, err := s.Client.UserCoupons(bg, "VU-1", "OFFER-DEMO"); err != nil || len(cs) != 0 {
		t.Fatalf("after reset: %v %v, want no coupons", cs, err)
	}
	// Stock and purchase_limit counters were reset too: two more claims succeed (limit 2).
	for _, tx := range []string{"T2", "T3"} {
		if _, err := s.Client.FetchCouponCode(bg, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-1", ChannelName: "DEMOBANK", ExtTransactionID: tx, CoinsUsed: "100"}); err != nil {
			t.Fatalf("claim %s after reset: %v", tx, err)
		}
	}
}

// clause: CPN-9 (getUserCoupons, the simulator's reading: with offerId the
// user's coupons of that offer; without, of every offer; never another user's)
func TestUserCouponsWithAndWithoutOffer_CPN9(t *testing.T) {
	s := simtest.New(t, simtest.WithScenarioYAML(`version: 1
name: cpn9
channels:
  - {name: DEMOBANK, certificateFile: "builtin:publisher-dev.crt", appKey: DEMOAPPKEY, secKey: DEMOSECKEY}
offers:
  DEMOBANK:
    - {id: OFF-A, title: A, coins: 100, stock: 100}
    - {id: OFF-B, title: B, coins: 100, stock: 100}
`))
	for _, c := range []publisher.CouponRequest{claim("OFF-A", "VU-1", "T1"), claim("OFF-B", "VU-1", "T2"), claim("OFF-A", "VU-2", "T3")} {
		if _, err := s.Client.FetchCouponCode(bg, c); err != nil {
			t.Fatal(err)
		}
	}
	txs := func(offer string) string {
		cs, err := s.Client.UserCoupons(bg, "VU-1", offer)
		if err != nil {
			t.Fatalf("getUserCoupons %q: %v", offer, err)
		}
		var out []string
		for _, c := range cs {
			out = append(out, c.ID+"/"+c.ExtTransactionID)
		}
		return strings.Join(out, ",")
	}
	for offer, want := range map[string]string{"OFF-A": "OFF-A/T1", "OFF-B": "OFF-B/T2", "": "OFF-A/T1,OFF-B/T2", "OFF-NONE": ""} {
		if got := txs(offer); got != want {
			t.Errorf("offerId %q: %s, want %s", offer, got, want)
		}
	}
}
