package sim_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// slowClaimFault withholds the answer of VU-SLOW's first fetchCouponCode
// after committing it (CPN-4), on top of the default scenario.
const slowClaimFault = "faults:\n  - {endpoint: fetchCouponCode, virtualId: VU-SLOW, times: 1, action: {kind: commit-then-delay, delay: 1m}}\n"

// timedOutClaim claims OFFER-DEMO for VU-SLOW with a client that gives up
// (the slowClaimFault withholds the answer) and checks the claim was
// delivered all the same.
func timedOutClaim(t *testing.T, s *simtest.Server, tx string) {
	t.Helper()
	impatient := *s.Client
	impatient.HTTP = &http.Client{Transport: s.HTTP.Transport, Timeout: time.Second}
	_, err := impatient.FetchCouponCode(context.Background(), publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-SLOW", ExtTransactionID: tx, CoinsUsed: "100"})
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("want a client timeout, got %v", err)
	}
	list, err := s.Client.UserCoupons(context.Background(), "VU-SLOW", "OFFER-DEMO")
	if err != nil || len(list) != 1 || list[0].ExtTransactionID != tx {
		t.Fatalf("reconcile: %+v %v, want %s delivered", list, err, tx)
	}
}

// cardsFor issues n UPI cards to vid with a correct GetReward and returns
// the answers' cards.
func cardsFor(t *testing.T, c *publisher.Client, ref, vid string, n int) []publisher.Card {
	t.Helper()
	var out []publisher.Card
	for i := range n {
		amount := 120.75
		res, got, err := c.GetReward(context.Background(), ref, publisher.GetRewardRequest{
			ChannelName: "DEMOBANK", VirtualID: vid, TriggerEventType: "UPI",
			ExtTransactionID: fmt.Sprintf("TXN-%s-%d", vid, i), Amount: &amount, DateAndTime: "15012026100000",
		})
		if err != nil || !got.Status || len(got.Rewards) != 1 {
			t.Fatalf("GetReward: %v %s", err, res.Body)
		}
		out = append(out, got.Rewards...)
	}
	return out
}

// rawGetReward posts a GetReward body as written, with the reference token.
func rawGetReward(t *testing.T, s *simtest.Server, ref, body string) *publisher.Response {
	t.Helper()
	res, err := s.Client.Do(context.Background(), http.MethodPost, s.RewardsURL+"/api/GetReward",
		http.Header{"Authorization": {"Bearer " + ref}, "Content-Type": {"application/json"}}, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

const goodGetReward = `{"channelName":"DEMOBANK","virtualId":"VU-9","triggerEventType":"UPI","extTransactionId":"TXN-R","amount":AMOUNT,"dateandtime":"DATE"ADD}`

func getRewardBody(amount, date, add string) string {
	return strings.NewReplacer("AMOUNT", amount, "DATE", date, "ADD", add).Replace(goodGetReward)
}

// clause: SIM-6, AUTH-1, GR-5, GR-6, GR-7, CPN-4, CPN-5, TRK-1
// Each publisher mistake, made through the real endpoints of the default
// scenario, is in GET /__sim/report?channel=DEMOBANK as its clause with its
// count, and nothing else is.
func TestReport_SIM6_findingsProvokedThroughTheEndpoints(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, clause, rule string
		count              int
		scenario           simtest.Option // nil: the default scenario
		provoke            func(t *testing.T, s *simtest.Server, ref, user string)
	}{
		{"AUTH-1 user token to GetReward, reference token to FetchRewardInfo", "AUTH-1", "wrong-token-type", 2, nil,
			func(t *testing.T, s *simtest.Server, ref, user string) {
				res, _, err := s.Client.GetReward(ctx, user, publisher.GetRewardRequest{ChannelName: "DEMOBANK", VirtualID: "VU-1", TriggerEventType: "UPI", ExtTransactionID: "TXN-A", DateAndTime: "15012026100000"})
				if err == nil || res.StatusCode != http.StatusUnauthorized {
					t.Fatalf("GetReward with a user token: %v", err)
				}
				cards := cardsFor(t, s.Client, ref, "VU-1", 1)
				fireImpressions(t, s.Client, cards)
				if res, _, err := s.Client.FetchRewardInfo(ctx, ref, "VU-1", cards[0].RewardID); err == nil || res.StatusCode != http.StatusUnauthorized {
					t.Fatalf("FetchRewardInfo with the reference token: %v", err)
				}
			}},
		{"GR-7 additionalParams as a nested object", "GR-7", "nested-additional-params", 1, nil,
			func(t *testing.T, s *simtest.Server, ref, _ string) {
				rawGetReward(t, s, ref, getRewardBody("100", "15012026100000", `,"additionalParams":{"city":"Pune"}`))
			}},
		{"GR-6 dateandtime in ISO 8601", "GR-6", "dateandtime-format", 2, nil,
			func(t *testing.T, s *simtest.Server, ref, _ string) {
				rawGetReward(t, s, ref, getRewardBody("100", "2026-01-15T10:00:00+05:30", ""))
				rawGetReward(t, s, ref, getRewardBody("100", "31022026100000", "")) // 14 digits, no such day
			}},
		{"GR-5 amount with three decimals or as a string", "GR-5", "amount-format", 3, nil,
			func(t *testing.T, s *simtest.Server, ref, _ string) {
				rawGetReward(t, s, ref, getRewardBody("100.505", "15012026100000", ""))
				rawGetReward(t, s, ref, getRewardBody(`"100.50"`, "15012026100000", ""))
				rawGetReward(t, s, ref, getRewardBody("1e3", "15012026100000", ""))
			}},
		{"CPN-5 one extTransactionId on two offers", "CPN-5", "ext-transaction-id-across-offers", 1, nil,
			func(t *testing.T, s *simtest.Server, _, _ string) {
				if _, err := s.Client.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VIP-1", ExtTransactionID: "TX-SHARED", CoinsUsed: "100"}); err != nil {
					t.Fatal(err)
				}
				_, _ = s.Client.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-VIP", VirtualID: "VIP-1", ExtTransactionID: "TX-SHARED", CoinsUsed: "500"})
			}},
		{"CPN-4 retry after a timeout with a new extTransactionId", "CPN-4", "retry-with-new-ext-transaction-id", 1, changedScenario(t, "faults:\n", slowClaimFault),
			func(t *testing.T, s *simtest.Server, _, _ string) {
				timedOutClaim(t, s, "TX-SLOW-1")
				if _, err := s.Client.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-SLOW", ExtTransactionID: "TX-SLOW-2", CoinsUsed: "100"}); err != nil {
					t.Fatal(err) // a second coupon (purchaseLimit 2): the user paid twice
				}
			}},
		{"CPN-3 claims with new ids after COUPON_EXHAUSTED", "CPN-3", "claim-after-terminal-error", 2,
			changedScenario(t, "faults:\n", "faults:\n  - {endpoint: fetchCouponCode, virtualId: VU-EX, action: {kind: coupon-error, errorCode: COUPON_EXHAUSTED}}\n"),
			func(t *testing.T, s *simtest.Server, _, _ string) {
				for _, tx := range []string{"TX-EX-1", "TX-EX-2", "TX-EX-3"} {
					if _, err := s.Client.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-EX", ExtTransactionID: tx, CoinsUsed: "100"}); err == nil {
						t.Fatal("the coupon-error fault did not answer COUPON_EXHAUSTED")
					}
				}
			}},
		{"TOK-4 a user token used past its expiry, twice", "TOK-4", "expired-token", 2, nil,
			func(t *testing.T, s *simtest.Server, ref, user string) {
				cards := cardsFor(t, s.Client, ref, "VU-1", 1)
				fireImpressions(t, s.Client, cards)
				s.Clock.Advance(31 * time.Minute) // userTTL 30m
				for range 2 {
					if res, _, err := s.Client.FetchRewardInfo(ctx, user, "VU-1", cards[0].RewardID); err == nil || res.StatusCode != http.StatusUnauthorized {
						t.Fatalf("FetchRewardInfo with an expired token: %v", err)
					}
				}
			}},
		{"TRK-1 cards listed, impressions never fired", "TRK-1", "tracklink-never-fired", 2, nil,
			func(t *testing.T, s *simtest.Server, ref, user string) {
				cardsFor(t, s.Client, ref, "VU-1", 2)
				listCards(t, s.Client, user, 2)
				listCards(t, s.Client, user, 2) // listed again: still one finding per card
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var opts []simtest.Option
			if c.scenario != nil {
				opts = append(opts, c.scenario)
			}
			s := simtest.New(t, opts...)
			ref, user := tokens(t, s.Client)
			c.provoke(t, s, ref, user)
			r := report(t, s, "channel=DEMOBANK")
			if len(r.Findings) != 1 || r.Findings[0].Clause != c.clause || r.Findings[0].ID != c.rule || r.Findings[0].Count != c.count {
				t.Fatalf("findings %v %+v, want %s/%s counted %d", findingIDs(r), r.Findings, c.clause, c.rule, c.count)
			}
			if f := r.Findings[0]; f.Example.Seq == 0 || f.Example.Path == "" || f.Example.Detail == "" {
				t.Errorf("finding without an example exchange: %+v", f)
			}
			if other := report(t, s, "channel=OTHER"); len(other.Findings) != 0 {
				t.Errorf("another channel's report: %v", findingIDs(other))
			}
		})
	}
}

// clause: SIM-6, AUTH-1, GR-5, GR-6, GR-7, CPN-4, CPN-5, TRK-1
// A well-behaved publisher (right tokens, impressions fired, a timed-out
// claim reconciled and retried with the same extTransactionId) gets no
// finding at all.
func TestReport_SIM6_wellBehavedFlowHasNoFindings(t *testing.T) {
	s := simtest.New(t, changedScenario(t, "faults:\n", slowClaimFault))
	fullFlow(t, s.Client)
	timedOutClaim(t, s, "TX-SLOW-1")
	again, err := s.Client.FetchCouponCode(context.Background(), publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-SLOW", ExtTransactionID: "TX-SLOW-1", CoinsUsed: "100"})
	if err != nil || again.ExtTransactionID != "TX-SLOW-1" {
		t.Fatalf("retry with the same extTransactionId: %+v %v", again, err)
	}
	r := report(t, s, "channel=DEMOBANK")
	// 16 of DEMOBANK: the impression and coupon-URL GETs are the channel's too (issue 52).
	if len(r.Findings) != 0 || r.Exchanges != 16 {
		ids := findingIDs(r)
		sort.Strings(ids)
		t.Fatalf("a well-behaved flow: %d exchanges, findings %v %+v", r.Exchanges, ids, r.Findings)
	}
	if all := report(t, s, ""); len(all.Findings) != 0 {
		t.Errorf("the report of every channel: %v", findingIDs(all))
	}
}
