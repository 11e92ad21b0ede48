package simtest_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// failures is a testing.TB that keeps what a helper reported.
type failures struct {
	testing.TB
	msgs []string
}

func (f *failures) Helper()                   {}
func (f *failures) Error(args ...any)         { f.msgs = append(f.msgs, fmt.Sprint(args...)) }
func (f *failures) Errorf(s string, a ...any) { f.msgs = append(f.msgs, fmt.Sprintf(s, a...)) }

// clause: SIM-5, SIM-4, CPN-1
// Parallel tests each take a channel like DEMOBANK and verify their own
// calls: exact counts, never, a regex, since a watermark; a count that
// does not hold fails the test naming the near miss.
func TestChannel_SIM5_parallelTestsVerifyTheirOwnCalls(t *testing.T) {
	srv := simtest.New(t)
	for i := range 4 {
		t.Run(fmt.Sprint("user", i), func(t *testing.T) {
			t.Parallel()
			ch := srv.Channel(t)
			if !strings.HasPrefix(ch.Name, "T-") || len(ch.Name) > 64 {
				t.Fatalf("channel name %q", ch.Name)
			}
			claim := func(txn string) *publisher.Response {
				res, err := ch.Client.PostAPIKey(bg, "/api/fetchCouponCode", publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-1", ChannelName: ch.Name, ExtTransactionID: txn, CoinsUsed: "100"})
				if err != nil || res.StatusCode != 200 {
					t.Fatalf("fetchCouponCode: %v %+v", err, res)
				}
				return res
			}
			claim("T-1")
			mark := simtest.Seq(claim("T-2"))
			if mark == 0 {
				t.Fatal("no X-Rewardsim-Seq")
			}
			ch.Verify(t, simtest.Verification{Endpoint: "fetchCouponCode", Where: map[string]any{"/extTransactionId": "T-1"}, Count: simtest.Times(1)})
			ch.Verify(t, simtest.Verification{Endpoint: "fetchCouponCode", Where: map[string]any{"/extTransactionId": "T-3"}, Count: simtest.Never()})
			ch.Verify(t, simtest.Verification{Endpoint: "fetchCouponCode", Where: map[string]any{"/extTransactionId": simtest.Regex("^T-")}, Count: simtest.Times(2)})
			ch.Verify(t, simtest.Verification{Endpoint: "fetchCouponCode", Since: mark, Count: simtest.Times(1)})
			if v := ch.Verify(t, simtest.Verification{Endpoint: "fetchCouponCode"}); v.Count != 2 {
				t.Errorf("default count: %+v", v)
			}

			f := &failures{TB: t}
			v := ch.Verify(f, simtest.Verification{Endpoint: "fetchCouponCode", Where: map[string]any{"/extTransactionId": "T-9"}, Since: mark, Count: simtest.Times(1)})
			if v.OK || len(f.msgs) != 1 || !strings.Contains(f.msgs[0], `/extTransactionId: want "T-9", got "T-2"`) {
				t.Errorf("a failed verify: %+v %q", v, f.msgs)
			}
		})
	}
}

// clause: SIM-5, TOK-3
// On the harness's fake clock, one channel's own clock moves alone.
func TestChannel_SIM5_ownClock(t *testing.T) {
	srv := simtest.New(t)
	a, b := srv.Channel(t), srv.Channel(t)
	ua, err := a.Client.UserToken(bg, "VU-1")
	if err != nil {
		t.Fatal(err)
	}
	ub, err := b.Client.UserToken(bg, "VU-1")
	if err != nil {
		t.Fatal(err)
	}
	got := control(t, srv, "POST", "/__sim/clock/advance", map[string]any{"channel": a.Name, "by": "31m"})
	if got["own"] != true {
		t.Fatalf("advance: %v", got)
	}
	if res, _, _ := a.Client.ListCards(bg, ua.Token, ""); res == nil || res.StatusCode != 401 {
		t.Errorf("a's token outlived a's clock: %+v", res)
	}
	if res, _, err := b.Client.ListCards(bg, ub.Token, ""); err != nil || res.StatusCode != 200 {
		t.Errorf("b's token expired with a's clock: %v %+v", err, res)
	}
	if !srv.Clock.Now().Equal(simtest.Start) {
		t.Errorf("the harness clock moved: %s", srv.Clock.Now().Format(time.RFC3339))
	}
}
