package sim_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// An injected INVALID_OFFER on an offer the channel has says what the
// real refusal of an inactive offer says, never a falsehood of the
// channel's state such as "not an offer of channel DEMOBANK" (issue 52,
// item 5; CPN-3).
func TestInjectedInvalidOffer_speaksAsARealInactiveOffer(t *testing.T) {
	s := simtest.New(t)
	ctx := context.Background()
	claim := func(offer, tx string) *publisher.CouponError {
		t.Helper()
		_, err := s.Client.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: offer, VirtualID: "VU-W", ExtTransactionID: tx, CoinsUsed: "50"})
		var ce *publisher.CouponError
		if !errors.As(err, &ce) || ce.ErrorCode != "INVALID_OFFER" {
			t.Fatalf("claim of %s: %v, want INVALID_OFFER", offer, err)
		}
		return ce
	}
	real := claim("OFFER-RETIRED", "TX-W1") // active: false in the default scenario
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{"endpoint": "fetchCouponCode", "times": 1,
		"action": map[string]any{"kind": "coupon-error", "errorCode": "INVALID_OFFER"}})
	injected := claim("OFFER-DEMO", "TX-W2")
	if want := strings.ReplaceAll(real.Message, "OFFER-RETIRED", "OFFER-DEMO"); injected.Message != want {
		t.Errorf("injected INVALID_OFFER says %q, want the words of a real inactive offer: %q", injected.Message, want)
	}
	if strings.Contains(injected.Message, "not an offer of channel") {
		t.Errorf("injected INVALID_OFFER says %q: false of DEMOBANK, which has OFFER-DEMO", injected.Message)
	}
}

// A card's impression GET (its trackLink) and a coupon URL's follow are
// journaled with their channel, so the journal (and the report) filtered
// by channel hold them (issue 52, item 5; TRK-1, CPN-8).
func TestTracking_isJournaledWithItsChannel(t *testing.T) {
	s := simtest.New(t)
	ref, _ := tokens(t, s.Client)
	fireImpressions(t, s.Client, cardsFor(t, s.Client, ref, "VU-TRK", 1))
	cp, err := s.Client.FetchCouponCode(context.Background(), publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-TRK", ExtTransactionID: "TX-TRK", CoinsUsed: "100"})
	if err != nil || cp.URL == "" {
		t.Fatalf("claim: %+v %v", cp, err)
	}
	follow(t, cp.URL)
	var page struct {
		Entries []struct{ Path, Channel, ChannelID string }
	}
	if err := json.Unmarshal(ctlOKRaw(t, s, "/__sim/journal?channel=DEMOBANK&limit=1000"), &page); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range page.Entries {
		for _, p := range []string{"/track/impression", "/hotdeals/r/"} {
			if strings.HasPrefix(e.Path, p) {
				seen[p] = true
				if e.Channel != "DEMOBANK" || e.ChannelID != "DEMOBANK" {
					t.Errorf("%s is journaled for channel %q / %q, want DEMOBANK", e.Path, e.Channel, e.ChannelID)
				}
			}
		}
	}
	if !seen["/track/impression"] || !seen["/hotdeals/r/"] {
		t.Errorf("the journal of channel DEMOBANK holds the impression GET %v and the coupon URL's follow %v: %+v", seen["/track/impression"], seen["/hotdeals/r/"], page.Entries)
	}
}
