package sim_test

import (
	"testing"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// Issue 50, item 10: a call naming channel B but carrying job A's
// credentials (A's signing key, A's appKey/secKey), refused at the way
// in, is not B's call: verify on B counts only what B's credentials
// admitted (a shared box's other job once made B's `times: 1` fail with
// count 2). The journal still shows it under B, refused and marked
// unadmitted; a call B's credentials admitted and a later check refused
// (a bad body) stays B's.
func TestVerify_SIM4_countsOnlyAdmittedCalls(t *testing.T) {
	for _, tc := range []struct {
		name, endpoint string
		call           func(a, b *publisher.Client) error
		counted        int // B's calls verify counts, B's own good one included
	}{
		{"signed with A's key", "getSecuredReferenceToken", func(a, b *publisher.Client) error {
			x := *a
			x.ChannelID, x.Channel = b.ChannelID, b.Channel
			_, err := x.ReferenceToken(bg)
			return err
		}, 1},
		{"A's appKey and secKey", "fetchCouponCode", func(a, b *publisher.Client) error {
			x := *b
			x.AppKey, x.SecKey = a.AppKey, a.SecKey
			_, err := x.FetchCouponCode(bg, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "U1", ExtTransactionID: "T-X", CoinsUsed: "100"})
			return err
		}, 1},
		{"B's own appKey, a bad body", "fetchCouponCode", func(_, b *publisher.Client) error {
			_, err := b.FetchCouponCode(bg, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "U1", ExtTransactionID: "T-Y", CoinsUsed: "many"})
			return err
		}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := simtest.New(t)
			a := registerChannel(t, s, "JOBA", 0, "")
			b := registerChannel(t, s, "JOBB", 1, "")
			if err := tc.call(a, b); err == nil {
				t.Fatal("the call was not refused")
			}
			// B's own call: admitted (a registered channel has no offer,
			// so the claim itself is refused; it is B's call all the same).
			if tc.endpoint == "fetchCouponCode" {
				_, _ = b.FetchCouponCode(bg, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "U2", ExtTransactionID: "T-B", CoinsUsed: "100"})
			} else if _, err := b.ReferenceToken(bg); err != nil {
				t.Fatalf("B's own call: %v", err)
			}
			v := s.Verify(t, "JOBB", simtest.Verification{Endpoint: tc.endpoint, Count: simtest.Times(tc.counted)})
			if tc.counted == 1 && (len(v.Matches) != 1) {
				t.Errorf("matches %v, want B's own call only", v.Matches)
			}
			var page struct {
				Entries []struct {
					Outcome    string `json:"outcome"`
					Unadmitted bool   `json:"unadmitted"`
				} `json:"entries"`
			}
			decodeInto(t, ctlOKRaw(t, s, "/__sim/journal?channel=JOBB&endpoint="+tc.endpoint), &page)
			unadmitted := 0
			for _, e := range page.Entries {
				if e.Unadmitted {
					unadmitted++
					if e.Outcome != "refusal" {
						t.Errorf("an unadmitted call's outcome %q, want refusal", e.Outcome)
					}
				}
			}
			if len(page.Entries) != 2 || unadmitted != 2-tc.counted {
				t.Errorf("journal of JOBB: %+v, want both calls, %d marked unadmitted", page.Entries, 2-tc.counted)
			}
		})
	}
}
