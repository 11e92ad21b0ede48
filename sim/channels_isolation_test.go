package sim_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// isoScenario is a channel's own scenario: one campaign, pool and offer
// with the same ids in every channel, titles and codes naming the
// channel, and (for faultUser != "") a scenario fault on that user's
// listing. JSON is YAML, so it is uploaded as is.
func isoScenario(ch string, key int, faultUser string) string {
	f := map[string]any{
		"version": 1, "name": "iso-" + ch, "seed": 3,
		"channels": []any{map[string]any{"name": ch, "channelId": ch + "-ID", "certificate": string(testKeys()[key].certPEM),
			"appKey": ch + "-APP", "secKey": ch + "-SEC"}},
		"campaigns": []any{map[string]any{"id": "CAMP", "channel": ch, "triggers": []string{"UPI"}, "pool": "POOL"}},
		"pools": []any{map[string]any{"id": "POOL", "entries": []any{map[string]any{
			"id": "E", "couponPattern": ch + "-{seq}", "offer": map[string]any{"offerTitle": ch + " reward", "couponType": "CODE"},
		}}}},
		"offers": map[string]any{ch: []any{map[string]any{
			"id": "OFFER-X", "title": ch + " offer", "coins": 100, "stock": 1000, "codes": map[string]any{"pattern": ch + "-CPN-{seq}"},
		}}},
	}
	if faultUser != "" {
		f["faults"] = []any{map[string]any{"endpoint": "GetAllScratchCardsByUserId", "virtualId": faultUser, "action": map[string]any{"kind": "internal-error"}}}
	}
	raw, err := json.Marshal(f)
	if err != nil {
		panic(err)
	}
	return string(raw)
}

// isoChannel is one channel of the isolation test and what it did.
type isoChannel struct {
	name string
	c    *publisher.Client
	ref  string
	mu   sync.Mutex
	runs map[string]*isoRun // by virtualId
}

// isoRun is what one user of a channel got.
type isoRun struct {
	token    string
	bodies   []map[string]any
	cards    []uint64
	revealed publisher.RevealedReward
	coupon   publisher.Coupon
}

func (ch *isoChannel) getReward(vid string, i, k int) (map[string]any, publisher.GetRewardAnswer, error) {
	body := map[string]any{"channelName": ch.name, "virtualId": vid, "triggerEventType": "UPI",
		"extTransactionId": fmt.Sprintf("ISOTX%d%d", i, k), "amount": 99.5, "dateandtime": "15012026100000"}
	_, ans, err := ch.c.GetReward(bg, ch.ref, body)
	return body, ans, err
}

func (ch *isoChannel) claim(vid string, i int) publisher.CouponRequest {
	return publisher.CouponRequest{OfferID: "OFFER-X", VirtualID: vid, ExtTransactionID: fmt.Sprintf("ISOCPN%d", i), CoinsUsed: "100"}
}

// run is one user's whole flow; the same virtualIds and extTransactionIds
// are used in every channel. Errors are reported with t.Errorf (it runs
// in a goroutine).
func (ch *isoChannel) run(t *testing.T, vid string, i int) {
	r := &isoRun{}
	tok, err := ch.c.UserToken(bg, vid)
	if err != nil {
		t.Errorf("%s %s user token: %v", ch.name, vid, err)
		return
	}
	r.token = tok.Token
	for k := range 2 {
		body, ans, err := ch.getReward(vid, i, k)
		if err != nil || !ans.Status || len(ans.Rewards) != 1 {
			t.Errorf("%s %s GetReward %d: %v %+v", ch.name, vid, k, err, ans)
			return
		}
		r.bodies, r.cards = append(r.bodies, body), append(r.cards, ans.Rewards[0].RewardID)
	}
	// GR-4 per channel: a duplicate returns this channel's card.
	if _, ans, err := ch.c.GetReward(bg, ch.ref, r.bodies[0]); err != nil || len(ans.Rewards) != 1 || ans.Rewards[0].RewardID != r.cards[0] {
		t.Errorf("%s %s GetReward duplicate: %v %+v, want card %d", ch.name, vid, err, ans, r.cards[0])
	}
	if _, r.revealed, err = ch.c.FetchRewardInfo(bg, r.token, vid, r.cards[0]); err != nil ||
		r.revealed.OfferTitle != ch.name+" reward" || !strings.HasPrefix(r.revealed.CouponCode, ch.name+"-") {
		t.Errorf("%s %s reveal: %v %+v, want this channel's reward", ch.name, vid, err, r.revealed)
	}
	if _, list, err := ch.c.ListCards(bg, r.token, "limit=50"); err != nil || list.Total != len(r.cards) {
		t.Errorf("%s %s listing: %v %d cards, want %d", ch.name, vid, err, list.Total, len(r.cards))
	}
	if r.coupon, err = ch.c.FetchCouponCode(bg, ch.claim(vid, i)); err != nil || !strings.HasPrefix(r.coupon.CouponCode, ch.name+"-CPN-") {
		t.Errorf("%s %s claim: %v %+v, want this channel's code", ch.name, vid, err, r.coupon)
	}
	// CPN-5 per channel: the duplicate returns this channel's coupon.
	if again, err := ch.c.FetchCouponCode(bg, ch.claim(vid, i)); err != nil || again != r.coupon {
		t.Errorf("%s %s duplicate claim: %v %+v, want %+v", ch.name, vid, err, again, r.coupon)
	}
	ch.mu.Lock()
	ch.runs[vid] = r
	ch.mu.Unlock()
}

// faultRun is the user the faults name: CIA's rules and scenario fault
// must fire for CIA only.
func (ch *isoChannel) faultRun(t *testing.T, vid string, faulted bool) {
	_, ans, err := ch.getReward(vid, 9, 0)
	if got := err == nil && ans.Status && len(ans.Rewards) == 1; got == faulted {
		t.Errorf("%s %s GetReward: %v %+v (faulted: %v)", ch.name, vid, err, ans, faulted)
	}
	_, err = ch.c.FetchCouponCode(bg, ch.claim(vid, 9))
	if got := publisher.IsCouponError(err, "INTERNAL_ERROR"); got != faulted {
		t.Errorf("%s %s claim: %v (faulted: %v)", ch.name, vid, err, faulted)
	}
	tok, err := ch.c.UserToken(bg, vid)
	if err != nil {
		t.Errorf("%s %s user token: %v", ch.name, vid, err)
		return
	}
	res, _, err := ch.c.ListCards(bg, tok.Token, "")
	if err != nil {
		t.Errorf("%s %s listing: %v", ch.name, vid, err)
		return
	}
	if got := res.StatusCode != http.StatusOK; got != faulted {
		t.Errorf("%s %s listing: HTTP %d (faulted: %v)", ch.name, vid, res.StatusCode, faulted)
	}
}

// check lists every user's cards and coupons and compares them with what
// the user got: only this channel's, all of them.
func (ch *isoChannel) check(t *testing.T, when string) {
	t.Helper()
	for vid, r := range ch.runs {
		_, list, err := ch.c.ListCards(bg, r.token, "limit=50")
		if err != nil || list.Total != len(r.cards) {
			t.Errorf("%s: %s %s listing: %v %d cards, want %d", when, ch.name, vid, err, list.Total, len(r.cards))
		}
		for _, card := range list.Rewards {
			if !slices.Contains(r.cards, card.RewardID) {
				t.Errorf("%s: %s %s lists card %d it was never issued", when, ch.name, vid, card.RewardID)
			}
			if card.RewardID == r.cards[0] && card.CardOffer != r.revealed.CardOffer {
				t.Errorf("%s: %s %s revealed card %+v, want %+v", when, ch.name, vid, card.CardOffer, r.revealed.CardOffer)
			}
			if card.RewardID != r.cards[0] && card.IsAlreadyRewarded {
				t.Errorf("%s: %s %s card %d revealed, but it never was", when, ch.name, vid, card.RewardID)
			}
		}
		cs, err := ch.c.UserCoupons(bg, vid, "OFFER-X")
		if err != nil || len(cs) != 1 || cs[0].CouponCode != r.coupon.CouponCode || cs[0].ExtTransactionID != r.coupon.ExtTransactionID {
			t.Errorf("%s: %s %s getUserCoupons: %v %+v, want only %+v", when, ch.name, vid, err, cs, r.coupon)
		}
	}
}

// clause: SIM-2, SIM-3, GR-4, CPN-5
// Two channels registered at run time, each governed by its own scenario
// (the same campaign, pool and offer ids), used in parallel with the same
// virtualIds and extTransactionIds, never see each other's cards,
// coupons or faults; a reset of one wipes its cards and coupons and
// leaves the other's.
func TestChannels_SIM2_SIM3_parallelCardsCouponsFaultsAreIsolated(t *testing.T) {
	s := simtest.New(t)
	const faultUser = "VU-F"
	chans := []*isoChannel{
		{name: "CIA", c: registerChannel(t, s, "CIA", 0, ""), runs: map[string]*isoRun{}},
		{name: "CIB", c: registerChannel(t, s, "CIB", 1, ""), runs: map[string]*isoRun{}},
	}
	for i, ch := range chans {
		fu := ""
		if ch.name == "CIA" {
			fu = faultUser
		}
		ctlOK(t, s, http.StatusCreated, "POST", "/__sim/scenarios?activate=true&channel="+ch.name, isoScenario(ch.name, i, fu))
		act := ctlOK(t, s, http.StatusOK, "GET", "/__sim/scenarios/active?channel="+ch.name, nil)
		if act["scenario"].(map[string]any)["name"] != "iso-"+ch.name {
			t.Fatalf("scenario of %s: %v", ch.name, act)
		}
		ref, err := ch.c.ReferenceToken(bg)
		if err != nil {
			t.Fatalf("%s reference token: %v", ch.name, err)
		}
		ch.ref = ref.ReferenceKey
	}
	for _, ep := range []string{"GetReward", "fetchCouponCode"} {
		ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{
			"id": "cia-" + ep, "endpoint": ep, "channel": "CIA", "virtualId": faultUser, "action": map[string]any{"kind": "internal-error"},
		})
	}

	users := []string{"VU-1", "VU-2", "VU-3"}
	var wg sync.WaitGroup
	for _, ch := range chans {
		for i, vid := range users {
			wg.Go(func() { ch.run(t, vid, i) })
		}
		wg.Go(func() { ch.faultRun(t, faultUser, ch.name == "CIA") })
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for _, ch := range chans {
		ch.check(t, "after the parallel run")
	}
	rules := ctlOK(t, s, http.StatusOK, "GET", "/__sim/faults", nil)["rules"].([]any)
	for _, x := range rules {
		if r := x.(map[string]any); r["fired"] != 1.0 {
			t.Errorf("rule %v fired %v times, want once (CIA's call only)", r["id"], r["fired"])
		}
	}

	// CIA's VU-1 reveals the id of CIB's VU-1's unscratched card: it gets
	// CIA's reward when CIA's VU-1 holds that id unscratched (ids are per
	// channel, and which user gets which is up to the parallel run), the
	// already-revealed refusal when it is the card CIA's VU-1 revealed in
	// the run, a refusal otherwise, and CIB's card stays unscratched
	// whichever it is.
	a, b := chans[0], chans[1]
	id := b.runs["VU-1"].cards[1]
	_, r, err := a.c.FetchRewardInfo(bg, a.runs["VU-1"].token, "VU-1", id)
	switch own := slices.Contains(a.runs["VU-1"].cards, id); {
	case own && id == a.runs["VU-1"].cards[0]:
		if err == nil || r.Status || !strings.Contains(err.Error(), "Already Revealed") {
			t.Errorf("CIA's VU-1 revealing its own revealed card %d again: %v %+v, want the already-revealed refusal", id, err, r)
		}
	case own:
		if err != nil || !r.Status || r.OfferTitle != "CIA reward" {
			t.Errorf("CIA's VU-1 revealing its own card %d: %v %+v", id, err, r)
		}
	case err == nil && r.Status:
		t.Errorf("CIA's VU-1 revealed card %d it does not hold: %+v", id, r)
	}
	b.check(t, "after CIA revealed the same id")

	// Reset CIA: its cards, coupons and idempotency records go; CIB's stay.
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/state/reset", map[string]any{"channel": "CIA"})
	b.check(t, "after CIA's reset")
	ref, err := a.c.ReferenceToken(bg)
	if err != nil {
		t.Fatal(err)
	}
	a.ref = ref.ReferenceKey
	for _, vid := range users {
		tok, err := a.c.UserToken(bg, vid)
		if err != nil {
			t.Fatal(err)
		}
		if _, list, err := a.c.ListCards(bg, tok.Token, "limit=50"); err != nil || list.Total != 0 {
			t.Errorf("CIA %s after its reset: %v %d cards, want none", vid, err, list.Total)
		}
		if cs, err := a.c.UserCoupons(bg, vid, "OFFER-X"); err != nil || len(cs) != 0 {
			t.Errorf("CIA %s coupons after its reset: %v %+v, want none", vid, err, cs)
		}
		// The duplicate is a new event now: one new card, not the wiped one's id.
		if _, ans, err := a.c.GetReward(bg, a.ref, a.runs[vid].bodies[0]); err != nil || !ans.Status || len(ans.Rewards) != 1 {
			t.Errorf("CIA %s GetReward after its reset: %v %+v", vid, err, ans)
		}
		if _, list, err := a.c.ListCards(bg, tok.Token, "limit=50"); err != nil || list.Total != 1 {
			t.Errorf("CIA %s after a GetReward past its reset: %v %d cards, want 1", vid, err, list.Total)
		}
		// CIB's duplicate still returns CIB's original card.
		if _, ans, err := b.c.GetReward(bg, b.ref, b.runs[vid].bodies[0]); err != nil || len(ans.Rewards) != 1 || ans.Rewards[0].RewardID != b.runs[vid].cards[0] {
			t.Errorf("CIB %s duplicate after CIA's reset: %v %+v, want card %d", vid, err, ans, b.runs[vid].cards[0])
		}
	}
	b.check(t, "after CIA's new cards")
}

// clause: SIM-2, WH-5
// A channel registered at run time and then given a scenario of its own
// (which must name the channel, for its campaigns and offers) is still
// registered after a restart: its webhookUrl still receives pushes, and
// its scenario still issues its cards.
func TestChannels_SIM2_registeredChannelWithOwnScenarioSurvivesRestart(t *testing.T) {
	dir, clk := t.TempDir(), simtest.NewClock()
	rc := newReceiver(t, answerOK)
	s := simtest.New(t, simtest.WithDataDir(dir), simtest.WithClock(clk))
	ch := &isoChannel{name: "CIA", c: registerChannel(t, s, "CIA", 0, rc.URL), runs: map[string]*isoRun{}}
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/scenarios?activate=true&channel=CIA", isoScenario("CIA", 0, ""))
	s.Close()

	s = simtest.New(t, simtest.WithDataDir(dir), simtest.WithClock(clk))
	var list struct {
		Channels []struct{ Name, WebhookURL, Scenario, Source string }
	}
	_, out := ctl(t, s, "GET", "/__sim/channels", nil)
	decodeInto(t, out, &list)
	found := false
	for _, c := range list.Channels {
		if c.Name == "CIA" && c.Source == "registered" {
			found = true
			if c.WebhookURL != rc.URL || c.Scenario != "iso-CIA" {
				t.Errorf("CIA after restart: %+v, want webhookUrl %s and scenario iso-CIA", c, rc.URL)
			}
		}
	}
	if !found {
		t.Fatalf("CIA is no longer registered after the restart: %s", out)
	}
	schedule(t, s, map[string]any{"channel": "CIA", "offerId": "OFFER-X", "reason": "OUT_OF_STOCK"})
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/webhooks/run", nil)
	if n := len(rc.got()); n != 1 {
		t.Errorf("CIA's receiver got %d pushes after the restart, want 1", n)
	}
	ch.c = withURLs(ch.c, s)
	ref, err := ch.c.ReferenceToken(bg)
	if err != nil {
		t.Fatal(err)
	}
	ch.ref = ref.ReferenceKey
	ch.run(t, "VU-1", 0)
	if r := ch.runs["VU-1"]; r == nil || r.revealed.OfferTitle != "CIA reward" {
		t.Errorf("CIA's own scenario after the restart: %+v", r)
	}
}

// withURLs points a copy of c at s's hosts and validating client.
func withURLs(c *publisher.Client, s *simtest.Server) *publisher.Client {
	n := *c
	n.HTTP, n.RewardsURL, n.BankURL, n.HotdealsURL, n.ServiceKey = s.HTTP, s.RewardsURL, s.BankURL, s.HotdealsURL, s.Client.ServiceKey
	return &n
}
