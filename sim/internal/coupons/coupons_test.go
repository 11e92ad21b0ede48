package coupons

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
	"github.com/rewardsim/rewardsim/sim/internal/state"
)

const offersYAML = `version: 1
name: coupons
channels:
  - {name: A, certificateFile: builtin:publisher-dev.crt}
offers:
  A:
    - {id: OPEN, title: Open, coins: 100, stock: 1000, purchaseLimit: 2}
    - {id: MORE, title: More, coins: 100, stock: 1000}
    - {id: TWO, title: Two, coins: 10, stock: 2}
    - {id: VIP, title: VIP, coins: 10, stock: 10, targeting: {virtualIds: [VIP-1]}}
    - {id: OFF, title: Retired, coins: 10, stock: 10, active: false}
`

func newService(t testing.TB, switches string) (*Service, *scenario.Scenario) {
	t.Helper()
	set, err := schema.Compile(schemas.FS)
	if err != nil {
		t.Fatal(err)
	}
	y := offersYAML
	if switches != "" {
		y += "switches:\n  coupons: {" + switches + "}\n"
	}
	sc, err := scenario.Parse("t.yaml", []byte(y), set, scenario.Sources{Builtin: certs.FS})
	if err != nil {
		t.Fatal(err)
	}
	st, err := state.Open(t.TempDir(), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clk := clock.NewFake(time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC))
	return &Service{Store: st, Clock: clock.One{Clock: clk}}, sc
}

// step is one claim and what it must decide.
type step struct {
	offer, user, txn string
	coins            int
	want             Outcome
	// code, when set, is the coupon code a delivered or duplicate claim answers.
	code string
	// reason, when set, is a part of a refusal's reason.
	reason string
}

func run(t *testing.T, s *Service, sc *scenario.Scenario, steps []step) {
	t.Helper()
	for i, st := range steps {
		coins := st.coins
		if coins == 0 {
			coins = 100
		}
		res, err := s.Claim(ClaimRequest{Scenario: sc, Channel: "A", OfferID: st.offer, VirtualID: st.user,
			ExtTransactionID: st.txn, Coins: coins, BaseURL: "http://h"})
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if res.Outcome != st.want {
			t.Fatalf("step %d (%s %s %s): outcome %d (%v), want %d", i, st.offer, st.user, st.txn, res.Outcome, res.Refused, st.want)
		}
		if st.code != "" && res.Coupon.Code != st.code {
			t.Errorf("step %d: coupon %+v, want code %s", i, res.Coupon, st.code)
		}
		if (res.Outcome == Delivered || res.Outcome == Duplicate) != (res.Refused == nil) {
			t.Fatalf("step %d: outcome %d with refusal %v", i, res.Outcome, res.Refused)
		}
		if res.Refused != nil && (!strings.Contains(res.Refused.Msg, st.reason) || res.Refused.Code == "") {
			t.Errorf("step %d: refusal %+v, want a code and a reason containing %q", i, res.Refused, st.reason)
		}
	}
}

// clause: CPN-2, CPN-5, CPN-6, CPN-7
func TestClaim_outcomes(t *testing.T) {
	cases := []struct {
		name, switches string
		steps          []step
	}{
		{"deliver then duplicate returns the same coupon", "", []step{
			{offer: "OPEN", user: "U", txn: "T1", want: Delivered, code: "OPEN-000001"},
			{offer: "OPEN", user: "U", txn: "T1", want: Duplicate, code: "OPEN-000001"},
			{offer: "OPEN", user: "U", txn: "T2", want: Delivered, code: "OPEN-000002"},
		}},
		{"duplicate refused by the switch", "duplicate: reject", []step{
			{offer: "OPEN", user: "U", txn: "T1", want: Delivered},
			{offer: "OPEN", user: "U", txn: "T1", want: DuplicateRefused, reason: `"T1" was already processed`},
		}},
		{"another user's extTransactionId", "", []step{
			{offer: "OPEN", user: "U", txn: "T1", want: Delivered},
			{offer: "OPEN", user: "V", txn: "T1", want: OtherUser, reason: "another user"},
		}},
		{"cross-offer reject", "", []step{
			{offer: "OPEN", user: "U", txn: "T1", want: Delivered},
			{offer: "MORE", user: "U", txn: "T1", want: OtherOffer, reason: "already used on offer OPEN"},
		}},
		{"cross-offer new", "crossOffer: new", []step{
			{offer: "OPEN", user: "U", txn: "T1", want: Delivered, code: "OPEN-000001"},
			{offer: "MORE", user: "U", txn: "T1", want: Delivered, code: "MORE-000001"},
			{offer: "MORE", user: "U", txn: "T1", want: Duplicate, code: "MORE-000001"},
		}},
		{"cross-offer first", "crossOffer: first", []step{
			{offer: "OPEN", user: "U", txn: "T1", want: Delivered, code: "OPEN-000001"},
			{offer: "MORE", user: "U", txn: "T1", want: Duplicate, code: "OPEN-000001"},
		}},
		{"stock", "", []step{
			{offer: "TWO", user: "U", txn: "T1", coins: 10, want: Delivered},
			{offer: "TWO", user: "V", txn: "T2", coins: 10, want: Delivered},
			{offer: "TWO", user: "W", txn: "T3", coins: 10, want: Exhausted, reason: "no coupons left"},
			{offer: "TWO", user: "U", txn: "T1", coins: 10, want: Duplicate}, // a duplicate is not a new claim
		}},
		{"purchase limit", "", []step{
			{offer: "OPEN", user: "U", txn: "T1", want: Delivered},
			{offer: "OPEN", user: "U", txn: "T2", want: Delivered},
			{offer: "OPEN", user: "U", txn: "T3", want: LimitReached, reason: "purchase_limit 2"},
			{offer: "OPEN", user: "V", txn: "T4", want: Delivered},
		}},
		{"targeting", "", []step{
			{offer: "VIP", user: "U", txn: "T1", want: NotEligible, reason: `excludes virtualId "U"`},
			{offer: "VIP", user: "VIP-1", txn: "T2", want: Delivered},
		}},
		{"closed offer", "", []step{
			{offer: "OFF", user: "U", txn: "T1", want: Closed, reason: "inactive"},
		}},
		{"unknown offer", "", []step{
			{offer: "NOPE", user: "U", txn: "T1", want: NoSuchOffer, reason: `"NOPE" is not an offer of channel A`},
		}},
		{"price mismatch accepted by default", "", []step{
			{offer: "OPEN", user: "U", txn: "T1", coins: 7, want: Delivered},
		}},
		{"price refused", "coinsMismatch: refuse", []step{
			{offer: "OPEN", user: "U", txn: "T1", coins: 7, want: WrongPrice, reason: "coinsUsed: 7 is not the price of offer OPEN (100 coins)"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, sc := newService(t, c.switches)
			run(t, s, sc, c.steps)
		})
	}
}

// A delivered coupon carries its keys, its order and its click URL, and
// the user's list and the catalogue count it (CPN-8, CPN-9, CPN-10).
func TestClaim_couponAndReads(t *testing.T) {
	s, sc := newService(t, "")
	res, err := s.Claim(ClaimRequest{Scenario: sc, Channel: "A", OfferID: "TWO", VirtualID: "U 1", ExtTransactionID: "T&1", Coins: 10, BaseURL: "http://h"})
	if err != nil || res.Outcome != Delivered {
		t.Fatalf("%+v %v", res, err)
	}
	c := res.Coupon
	want := "http://h/hotdeals/r/A/TWO?vid=U+1&txn=T%261"
	if c.Channel != "A" || c.OfferID != "TWO" || c.VirtualID != "U 1" || c.ExtTransactionID != "T&1" || c.Seq != 1 ||
		c.OrderID != "ORD-TWO-000001" || c.URL != want || !c.ValidUntil.After(c.PurchasedAt) {
		t.Fatalf("coupon %+v, want url %s", c, want)
	}
	held, err := s.UserCoupons("A", "TWO", "U 1")
	if err != nil || len(held) != 1 || held[0].Code != c.Code || held[0].State != model.CouponDelivered {
		t.Fatalf("user coupons %+v %v", held, err)
	}
	if all, _ := s.UserCoupons("A", "", "U 1"); len(all) != 1 {
		t.Errorf("user coupons of every offer: %+v", all)
	}
	list, err := s.Catalogue(sc, "A", "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range list {
		ids = append(ids, fmt.Sprintf("%s:%d", l.ID, l.Left))
	}
	if got := strings.Join(ids, " "); got != "OPEN:1000 MORE:1000 TWO:1 VIP:10" {
		t.Errorf("catalogue %s", got)
	}
	if list, _ := s.Catalogue(sc, "A", "U 1"); len(list) != 3 {
		t.Errorf("catalogue for a user outside VIP's targeting: %+v", list)
	}
	if n, err := s.Invalidate("A", "TWO", s.Clock.Now(), "WHY"); err != nil || n != 1 {
		t.Fatalf("invalidate: %d %v", n, err)
	}
	if held, _ := s.UserCoupons("A", "TWO", "U 1"); held[0].State != model.CouponInvalidated {
		t.Errorf("after invalidation: %+v", held)
	}
	if target, found, err := s.Follow(sc, "A", "TWO", "vid=U"); err != nil || !found || target != "https://brand.example/offers/TWO" {
		t.Fatalf("follow: %q %v %v", target, found, err)
	}
	if _, found, _ := s.Follow(sc, "A", "NOPE", ""); found {
		t.Error("follow of an unknown offer was found")
	}
	if clicks, _ := s.Clicks("A", "TWO"); len(clicks) != 1 || clicks[0].Query != "vid=U" {
		t.Errorf("clicks %+v", clicks)
	}
}

// Parallel claims never oversell the stock nor exceed purchase_limit,
// and parallel duplicates deliver once (CPN-5, CPN-6).
func TestClaim_parallel(t *testing.T) {
	s, sc := newService(t, "")
	const n = 40
	var wg sync.WaitGroup
	outcomes := make([]Outcome, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			offer, user, txn := "TWO", fmt.Sprint("U", i), fmt.Sprint("T", i)
			if i%2 == 1 {
				offer, user, txn = "OPEN", "SAME", fmt.Sprint("S", i%6) // 3 distinct extTransactionIds
			}
			res, err := s.Claim(ClaimRequest{Scenario: sc, Channel: "A", OfferID: offer, VirtualID: user, ExtTransactionID: txn, Coins: 100})
			if err != nil {
				t.Error(err)
			}
			outcomes[i] = res.Outcome
		}()
	}
	wg.Wait()
	count := map[string]int{}
	for i, o := range outcomes {
		count[fmt.Sprint(i%2, o)]++
	}
	if count[fmt.Sprint(0, Delivered)] != 2 || count[fmt.Sprint(0, Exhausted)] != n/2-2 {
		t.Errorf("stock 2: %v", count)
	}
	if held, _ := s.UserCoupons("A", "OPEN", "SAME"); len(held) != 2 {
		t.Errorf("purchase_limit 2: the user holds %d coupons", len(held))
	}
}

func TestDuplicateOf(t *testing.T) {
	a, b := model.Coupon{OfferID: "A", Code: "a"}, model.Coupon{OfferID: "B", Code: "b"}
	cases := []struct {
		prior      []model.Coupon
		offer      string
		crossOffer string
		want       string // the code of the duplicate, "" for none
	}{
		{nil, "A", scenario.CrossFirst, ""},
		{[]model.Coupon{a}, "A", scenario.CrossReject, "a"},
		{[]model.Coupon{a, b}, "B", scenario.CrossReject, "b"},
		{[]model.Coupon{a}, "B", scenario.CrossReject, ""},
		{[]model.Coupon{a}, "B", scenario.CrossNew, ""},
		{[]model.Coupon{a, b}, "C", scenario.CrossFirst, "a"},
	}
	for _, c := range cases {
		got, ok := duplicateOf(c.prior, c.offer, c.crossOffer)
		if ok != (c.want != "") || got.Code != c.want {
			t.Errorf("duplicateOf(%v, %s, %s) = %+v %v, want %q", c.prior, c.offer, c.crossOffer, got, ok, c.want)
		}
	}
}

// switches.coupons.replay is the former name of duplicate: still read,
// and refused when it contradicts duplicate.
func TestDuplicateSwitch_formerName(t *testing.T) {
	s, sc := newService(t, "replay: reject")
	run(t, s, sc, []step{
		{offer: "OPEN", user: "U", txn: "T1", want: Delivered},
		{offer: "OPEN", user: "U", txn: "T1", want: DuplicateRefused},
	})
	newService(t, "replay: reject, duplicate: reject") // agreeing: fine
	set, _ := schema.Compile(schemas.FS)
	y := offersYAML + "switches:\n  coupons: {duplicate: reject, replay: original}\n"
	_, err := scenario.Parse("t.yaml", []byte(y), set, scenario.Sources{Builtin: certs.FS})
	if err == nil || !strings.Contains(err.Error(), "/switches/coupons/replay: replay is the former name of duplicate") {
		t.Fatalf("contradicting replay and duplicate: %v", err)
	}
}

// orderID writes what the fmt.Sprintf it replaced wrote.
func TestOrderID_sameAsSprintf(t *testing.T) {
	for _, offer := range []string{"OFFER-DEMO", "", "ü%20x"} {
		for _, seq := range []int{0, 1, 9, 10, 99999, 100000, 999999, 1000000, 123456789, math.MaxInt} {
			if got, want := orderID(offer, seq), fmt.Sprintf("ORD-%s-%06d", offer, seq); got != want {
				t.Errorf("orderID(%q, %d) = %q, want %q", offer, seq, got, want)
			}
		}
	}
}
