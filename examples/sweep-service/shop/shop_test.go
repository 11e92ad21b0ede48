package shop

import (
	"context"
	"testing"
)

// The shop's own suite: what `rewardsim sweep` runs once per fault.

func shop(t *testing.T) *Shop {
	t.Helper()
	s, err := FromEnv()
	if err != nil {
		t.Skip(err) // not pointed at a simulator
	}
	return s
}

func TestRedeemGivesACoupon(t *testing.T) {
	s := shop(t)
	c, err := s.Redeem(context.Background(), "VU-REDEEM", "OFFER-DEMO", "100")
	if err != nil {
		t.Fatal(err)
	}
	if c.Code == "" || c.OfferID != "OFFER-DEMO" {
		t.Fatalf("coupon %+v", c)
	}
}

func TestMyCouponsListsTheRedeemedOne(t *testing.T) {
	s := shop(t)
	ctx := context.Background()
	c, err := s.Redeem(ctx, "VU-LIST", "OFFER-DEMO", "100")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := s.MyCoupons(ctx, "VU-LIST", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range cs {
		if got.Code == c.Code {
			return
		}
	}
	t.Fatalf("coupon %s not among %+v", c.Code, cs)
}

func TestSignInGivesAToken(t *testing.T) {
	s := shop(t)
	tok, err := s.SignIn(context.Background(), "VU-SIGNIN")
	if err != nil {
		t.Fatal(err)
	}
	if len(tok) < 16 {
		t.Fatalf("token %q", tok)
	}
}
