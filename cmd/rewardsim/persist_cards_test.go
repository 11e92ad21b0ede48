package main

import (
	"context"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/publisher"
)

// demoClient is the default scenario's DEMOBANK publisher against sv,
// verifying answers with the service certificate sv serves.
func (sv *served) demoClient(t *testing.T, key *rsa.PrivateKey) *publisher.Client {
	t.Helper()
	res, err := http.Get(sv.ctlURL + "/__sim/certs/service.pem")
	if err != nil {
		t.Fatal(err)
	}
	pemBytes, _ := io.ReadAll(res.Body)
	res.Body.Close()
	pub, err := publisher.ParsePublicKeyPEM(pemBytes)
	if err != nil {
		t.Fatalf("service certificate: %v", err)
	}
	return &publisher.Client{HTTP: http.DefaultClient, RewardsURL: sv.publicURL, BankURL: sv.publicURL, HotdealsURL: sv.publicURL,
		ChannelID: "DEMOBANK", Channel: "DEMOBANK", Key: key, ServiceKey: pub, AppKey: "DEMOAPPKEY", SecKey: "DEMOSECKEY"}
}

// journalSeqs reads the channel's journal (every control query flushes
// the journal's queue first) and returns endpoint -> sequence numbers.
func (sv *served) journalSeqs(t *testing.T, channel string) map[string][]uint64 {
	t.Helper()
	out := map[string][]uint64{}
	after := uint64(0)
	for range 100 { // bounded paging
		m := sv.ctl(t, "GET", fmt.Sprintf("/__sim/journal?channel=%s&limit=1000&after=%d", channel, after), nil)
		raw, _ := json.Marshal(m)
		var page struct {
			Entries []struct {
				Seq      uint64 `json:"seq"`
				Endpoint string `json:"endpoint"`
			} `json:"entries"`
			Next uint64 `json:"next"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			t.Fatalf("journal page: %v", err)
		}
		for _, e := range page.Entries {
			out[e.Endpoint] = append(out[e.Endpoint], e.Seq)
		}
		if page.Next == 0 {
			return out
		}
		after = page.Next
	}
	t.Fatal("journal paging did not end")
	return nil
}

// cardsBeforeKill is what a DEMOBANK user did before the kill: cards
// issued by GetReward, one revealed, a coupon claimed.
type cardsBeforeKill struct {
	vid, userToken, refToken string
	bodies                   []map[string]any // the GetReward bodies, one card each
	cards                    []uint64         // rewardIds, in issue order
	revealed                 publisher.RevealedReward
	// base is the pre-kill server's URL: imagery is absolute on it.
	base      string
	coupon    publisher.Coupon
	couponReq publisher.CouponRequest
	journal   map[string][]uint64
}

const persistVID = "VU-PERSIST"

// persistCards issues three cards (trigger UPI of the default scenario's
// CAMP-DEMO, one card per event), reveals the first and claims OFFER-DEMO.
func persistCards(ctx context.Context, t *testing.T, c *publisher.Client, sv *served) *cardsBeforeKill {
	t.Helper()
	p := &cardsBeforeKill{vid: persistVID}
	ref, err := c.ReferenceToken(ctx)
	if err != nil {
		t.Fatalf("reference token: %v", err)
	}
	user, err := c.UserToken(ctx, p.vid)
	if err != nil {
		t.Fatalf("user token: %v", err)
	}
	p.refToken, p.userToken = ref.ReferenceKey, user.Token
	for i := range 3 {
		body := map[string]any{"channelName": "DEMOBANK", "virtualId": p.vid, "triggerEventType": "UPI",
			"extTransactionId": fmt.Sprintf("PERSISTTX%d", i+1), "amount": 250.5, "dateandtime": "15012026100000"}
		res, ans, err := c.GetReward(ctx, p.refToken, body)
		if err != nil || !ans.Status || len(ans.Rewards) != 1 {
			t.Fatalf("GetReward %d: %v %+v (%s)", i, err, ans, res.Header.Get("X-Rewardsim-Reason"))
		}
		p.bodies = append(p.bodies, body)
		p.cards = append(p.cards, ans.Rewards[0].RewardID)
	}
	p.base = sv.publicURL
	_, p.revealed, err = c.FetchRewardInfo(ctx, p.userToken, p.vid, p.cards[0])
	if err != nil || !p.revealed.Status || p.revealed.RewardID != p.cards[0] || p.revealed.OfferTitle == "" {
		t.Fatalf("first reveal: %v %+v", err, p.revealed)
	}
	p.couponReq = publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: p.vid, ExtTransactionID: "PERSISTCPN1", CoinsUsed: "100"}
	if p.coupon, err = c.FetchCouponCode(ctx, p.couponReq); err != nil || p.coupon.CouponCode == "" {
		t.Fatalf("fetchCouponCode: %v %+v", err, p.coupon)
	}
	p.journal = sv.journalSeqs(t, "DEMOBANK")
	for _, ep := range []string{"GetReward", "FetchRewardInfo", "fetchCouponCode"} {
		if len(p.journal[ep]) == 0 {
			t.Fatalf("journal before the kill has no %s exchange: %v", ep, p.journal)
		}
	}
	return p
}

// check proves, after the restart, that the cards, the reveal, both
// idempotency records and the journal survived.
func (p *cardsBeforeKill) check(ctx context.Context, t *testing.T, c *publisher.Client, sv *served) {
	t.Helper()
	// SIM-2: every card is listed; the revealed one with its details.
	_, list, err := c.ListCards(ctx, p.userToken, "limit=50")
	if err != nil || list.Total != len(p.cards) || len(list.Rewards) != len(p.cards) {
		t.Fatalf("listing after restart: %v total %d, %d cards; want %d", err, list.Total, len(list.Rewards), len(p.cards))
	}
	for _, card := range list.Rewards {
		if !slices.Contains(p.cards, card.RewardID) {
			t.Errorf("listing after restart shows card %d that was never issued", card.RewardID)
		}
		if card.RewardID == p.cards[0] {
			// The restarted server listens elsewhere, and imagery is absolute on
			// the host that answers: compare the offers without their hosts.
			if !card.IsAlreadyRewarded || withoutHost(card.CardOffer, sv.publicURL) != withoutHost(p.revealed.CardOffer, p.base) {
				t.Errorf("revealed card after restart: %+v, want revealed with %+v", card, p.revealed.CardOffer)
			}
		} else if card.IsAlreadyRewarded || card.OfferTitle != "" || card.CouponCode != "" {
			t.Errorf("unscratched card %d after restart: %+v", card.RewardID, card)
		}
	}
	// REV-2: the one-shot reveal survived; the reward is not handed out again.
	res, again, err := c.FetchRewardInfo(ctx, p.userToken, p.vid, p.cards[0])
	if !publisher.IsFailure(err, "Reward Already Revealed!") || again.CouponCode != "" {
		t.Errorf("second reveal after restart: %v %+v %s, want Reward Already Revealed!", err, again, bodyOf(res))
	}
	// GR-4: a duplicate GetReward returns the same card and creates none.
	for i, body := range p.bodies {
		_, ans, err := c.GetReward(ctx, p.refToken, body)
		if err != nil || !ans.Status || len(ans.Rewards) != 1 || ans.Rewards[0].RewardID != p.cards[i] {
			t.Errorf("GetReward duplicate %s after restart: %v %+v, want card %d", body["extTransactionId"], err, ans, p.cards[i])
		}
	}
	if _, list, err := c.ListCards(ctx, p.userToken, "limit=50"); err != nil || list.Total != len(p.cards) {
		t.Errorf("after the duplicates: %v %d cards, want %d", err, list.Total, len(p.cards))
	}
	// SIM-2: the claim is listed with its extTransactionId.
	coupons, err := c.UserCoupons(ctx, p.vid, "OFFER-DEMO")
	if err != nil || len(coupons) != 1 || coupons[0].ExtTransactionID != p.couponReq.ExtTransactionID || coupons[0].CouponCode != p.coupon.CouponCode {
		t.Errorf("getUserCoupons after restart: %v %+v, want %s with %s", err, coupons, p.couponReq.ExtTransactionID, p.coupon.CouponCode)
	}
	// CPN-5 (duplicate: original): the duplicate returns the earlier coupon.
	duplicate, err := c.FetchCouponCode(ctx, p.couponReq)
	if err != nil || duplicate != p.coupon {
		t.Errorf("fetchCouponCode duplicate after restart: %v %+v, want %+v", err, duplicate, p.coupon)
	}
	if coupons, err := c.UserCoupons(ctx, p.vid, "OFFER-DEMO"); err != nil || len(coupons) != 1 {
		t.Errorf("after the coupon duplicate: %v %d coupons, want 1", err, len(coupons))
	}
	// SIM-2: the journal still holds the exchanges made before the kill.
	after := sv.journalSeqs(t, "DEMOBANK")
	for ep, seqs := range p.journal {
		for _, seq := range seqs {
			if !slices.Contains(after[ep], seq) {
				t.Errorf("journal after restart lost %s exchange %d (has %v)", ep, seq, after[ep])
			}
		}
	}
}

func bodyOf(res *publisher.Response) string {
	if res == nil {
		return ""
	}
	return string(res.Body)
}

// withoutHost strips base from the offer's URLs.
func withoutHost(o publisher.CardOffer, base string) publisher.CardOffer {
	for _, f := range []*string{&o.CouponImage, &o.BannerDisplayURL, &o.IconImage, &o.CoverImage, &o.PromoLink} {
		*f = strings.TrimPrefix(*f, base)
	}
	return o
}
