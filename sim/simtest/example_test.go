package simtest_test

import (
	"context"
	"fmt"
	"log"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// A simulator outside a test: NewServer starts it, Close stops it. The
// clock is fake, so token expiry is exact.
func ExampleNewServer() {
	s, err := simtest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()

	tok, err := s.Client.UserToken(ctx, "VU-1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("now:", s.Clock.Now().Format(time.DateTime))
	fmt.Println("token expires:", tok.ExpireDate)

	s.Clock.Advance(31 * time.Minute)
	_, _, err = s.Client.ListCards(ctx, tok.Token, "")
	fmt.Println("after 31 minutes:", err)
	// Output:
	// now: 2026-01-15 10:00:00
	// token expires: 2026-01-15 10:30:00.000
	// after 31 minutes: HTTP 401: {"message":"Unauthorized: token has expired","status":false}
}

// In a test, New starts the simulator and stops it when the test ends; an
// answer outside its operation's JSON Schema fails the test.
func ExampleNew() {
	testCheckout := func(t *testing.T) {
		s := simtest.New(t, simtest.WithSplitHosts())
		ctx := context.Background()
		ref, err := s.Client.ReferenceToken(ctx)
		if err != nil {
			t.Fatal(err)
		}
		amount := 250.0
		_, ans, err := s.Client.GetReward(ctx, ref.ReferenceKey, publisher.GetRewardRequest{
			ChannelName: "DEMOBANK", VirtualID: "VU-1", TriggerEventType: "UPI",
			ExtTransactionID: "TX-1", Amount: &amount, DateAndTime: "15012026100000",
		})
		if err != nil || !ans.Status {
			t.Fatalf("GetReward: %v %+v", err, ans)
		}
	}
	_ = testCheckout // run by `go test` as func TestCheckout(t *testing.T)
}

// A scenario of your own, given as YAML: here the coupon host mirrors the
// body status in the HTTP status (switch coupons.httpStatus).
func ExampleWithScenarioYAML() {
	s, err := simtest.NewServer(simtest.WithScenarioYAML(`
version: 1
name: mirror
channels:
  - {name: DEMOBANK, channelId: DEMOBANK, certificateFile: builtin:publisher-dev.crt, appKey: DEMOAPPKEY, secKey: DEMOSECKEY}
offers:
  DEMOBANK:
    - {id: OFFER-1, title: Coffee, coins: 100, stock: 1}
switches:
  coupons: {httpStatus: mirror}
`))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, tx := range []string{"TX-1", "TX-2"} {
		_, err := s.Client.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-1", VirtualID: "VU-1", ExtTransactionID: tx, CoinsUsed: "100"})
		fmt.Println(tx, err)
	}
	// Output:
	// TX-1 <nil>
	// TX-2 409 COUPON_EXHAUSTED: offer OFFER-1 has no coupons left (HTTP 409)
}

// CheckAnswer tells whether an answer keeps its operation's schemas, for
// answers that did not come through Server.HTTP.
func ExampleCheckAnswer() {
	fmt.Println(simtest.CheckAnswer("POST", "/api/GenerateSessionInfoV2", 200,
		[]byte(`{"STATUS":"FAILURE","ERRORSTRING":"Signature Mismatch!"}`)))
	fmt.Println(simtest.CheckAnswer("POST", "/api/fetchCouponCode", 429,
		[]byte(`{"status":409,"errorCode":"COUPON_EXHAUSTED","message":"none left"}`)))
	// Output:
	// <nil>
	// HTTP status differs from the body status
}
