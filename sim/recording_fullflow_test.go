package sim_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/golden"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/recordings"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// fullFlowResult is what the recorded publisher flow was handed, so a test
// can change a value it depends on.
type fullFlowResult struct {
	rewardID uint64
	revealed publisher.RevealedReward
	coupon   publisher.Coupon
}

// fullFlow is a complete, well-behaved publisher flow on every public
// endpoint of the default scenario: tokens, SSO session, GetReward
// (UPI on DEMOBANK), listing with the trackLink impressions fired, reveal
// of the issued rewardId, a second listing, the coupon catalogue, a coupon
// claim (OFFER-DEMO), the coupon URL followed, and the user's coupons.
func fullFlow(t *testing.T, c *publisher.Client) fullFlowResult {
	t.Helper()
	ctx := context.Background()
	var r fullFlowResult
	ref, user := tokens(t, c)
	if _, err := c.Session(ctx, "VU-1"); err != nil {
		t.Fatal(err)
	}
	amount := 250.5
	res, got, err := c.GetReward(ctx, ref, publisher.GetRewardRequest{
		ChannelName: "DEMOBANK", VirtualID: "VU-1", TriggerEventType: "UPI",
		ExtTransactionID: "TXN-FULL-1", Amount: &amount, DateAndTime: "15012026100000",
	})
	if err != nil || !got.Status || len(got.Rewards) != 1 {
		t.Fatalf("GetReward: %v %s", err, res.Body)
	}
	r.rewardID = got.Rewards[0].RewardID
	fireImpressions(t, c, listCards(t, c, user, 1))
	if _, r.revealed, err = c.FetchRewardInfo(ctx, user, "VU-1", r.rewardID); err != nil || !r.revealed.Status || r.revealed.OfferTitle == "" {
		t.Fatalf("reveal %d: %v %+v", r.rewardID, err, r.revealed)
	}
	fireImpressions(t, c, listCards(t, c, user, 1))
	if offers, err := c.Catalogue(ctx, "VU-1"); err != nil || len(offers) == 0 {
		t.Fatalf("getCatalogue: %v %+v", err, offers)
	}
	if r.coupon, err = c.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-1", ExtTransactionID: "TX-FULL-1", CoinsUsed: "100"}); err != nil {
		t.Fatal(err)
	}
	follow(t, r.coupon.URL)
	if list, err := c.UserCoupons(ctx, "VU-1", "OFFER-DEMO"); err != nil || len(list) != 1 {
		t.Fatalf("getUserCoupons: %v %+v", err, list)
	}
	return r
}

// tokens fetches the reference token and VU-1's user token.
func tokens(t *testing.T, c *publisher.Client) (ref, user string) {
	t.Helper()
	r, err := c.ReferenceToken(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	u, err := c.UserToken(context.Background(), "VU-1")
	if err != nil {
		t.Fatal(err)
	}
	return r.ReferenceKey, u.Token
}

// listCards lists the user's cards and checks how many there are.
func listCards(t *testing.T, c *publisher.Client, token string, want int) []publisher.Card {
	t.Helper()
	res, list, err := c.ListCards(context.Background(), token, "")
	if err != nil || !list.Status || len(list.Rewards) != want {
		t.Fatalf("listing: %v, %d cards, want %d: %s", err, len(list.Rewards), want, res.Body)
	}
	return list.Rewards
}

// fireImpressions GETs every trackLink of the listed cards (TRK-1).
func fireImpressions(t *testing.T, c *publisher.Client, cards []publisher.Card) {
	t.Helper()
	for _, card := range cards {
		if len(card.TrackLink) == 0 {
			t.Fatalf("card %d has no trackLink", card.RewardID)
		}
		for _, u := range card.TrackLink {
			res, err := c.Do(context.Background(), http.MethodGet, u, nil, nil)
			if err != nil || res.StatusCode >= 400 {
				t.Fatalf("impression %s: %v %v", u, res, err)
			}
		}
	}
}

// follow GETs a URL the way a browser's first hop does, without following
// the redirect.
func follow(t *testing.T, u string) {
	t.Helper()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noFollow.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound {
		t.Fatalf("%s answered %d", u, res.StatusCode)
	}
}

// clause: SIM-4
// Issue 6's done-when on every endpoint: the complete publisher flow is
// recorded, exported as fixtures/recordings/full-flow.json (written only with
// -update), replays with no difference against a fresh simulator (the
// rewardId, tokens and URLs are carried from the replayed answers), and a
// scenario that changes one value gives a difference naming that field.
func TestSession_SIM4_fullFlowRecordExportReplay(t *testing.T) {
	rec := simtest.New(t)
	flow := fullFlow(t, rec.Client)
	data := exportSession(t, rec, "full-flow")
	golden.Check(t, "recordings/full-flow.json", data)

	// Every endpoint of the flow is in the session, and the links between
	// answers and later requests are captures, not recorded values.
	var doc struct {
		Steps []struct {
			Endpoint, Path string
			Header         map[string]string
			Envelope       *struct{ Payload map[string]any }
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var eps []string
	for _, s := range doc.Steps {
		eps = append(eps, s.Endpoint)
		switch {
		case s.Endpoint == "FetchRewardInfo" && (s.Envelope == nil || !isPlaceholder(s.Envelope.Payload["rewardId"])):
			t.Errorf("FetchRewardInfo's rewardId is not captured: %+v", s.Envelope)
		case (s.Endpoint == "GetReward" || s.Endpoint == "FetchRewardInfo" || s.Endpoint == "GetAllScratchCardsByUserId") && !strings.Contains(s.Header["Authorization"], "${"):
			t.Errorf("%s's Authorization is not captured: %q", s.Endpoint, s.Header["Authorization"])
		case s.Endpoint == "" && !strings.HasPrefix(s.Path, "${"):
			t.Errorf("a followed URL is replayed from the recording: %s", s.Path)
		}
	}
	want := []string{"getSecuredReferenceToken", "GetAuthToken", "GenerateSessionInfoV2", "GetReward", "GetAllScratchCardsByUserId", "FetchRewardInfo", "GetAllScratchCardsByUserId", "getCatalogue", "fetchCouponCode", "getUserCoupons"}
	if !containsInOrder(eps, want) {
		t.Fatalf("session steps %v lack %v in order", eps, want)
	}

	if res := replay(t, simtest.New(t), data, recordings.ReplayOptions{}); !res.OK() || res.Steps != len(doc.Steps) {
		t.Fatalf("replay against a fresh simulator: %d of %d steps\n%s", res.Steps, len(doc.Steps), res.Report)
	}
	if res := replay(t, simtest.New(t, simtest.WithSplitHosts()), data, recordings.ReplayOptions{}); !res.OK() {
		t.Fatalf("replay against split hosts:\n%s", res.Report)
	}

	title := flow.revealed.OfferTitle
	cases := []struct {
		name, from, to string
		n              int // differences: every answer carrying the value, nothing else
		want           []string
	}{
		{"pool entry offerTitle", "offerTitle: " + title, "offerTitle: Changed title", 2,
			[]string{"FetchRewardInfo (POST /api/FetchRewardInfo): bdata /offerTitle", `recorded: "` + title + `"`, `replayed: "Changed title"`,
				"GetAllScratchCardsByUserId (GET /api/GetAllScratchCardsByUserId): body /rewards/0/offerTitle"}},
		{"service.channelId", "channelId: REWARDSIM", "channelId: OTHERSIM", 4, // the four envelope answers
			[]string{"FetchRewardInfo (POST /api/FetchRewardInfo): body /CHANNELID", `recorded: "REWARDSIM"`, `replayed: "OTHERSIM"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := replay(t, simtest.New(t, changedScenario(t, c.from, c.to)), data, recordings.ReplayOptions{})
			if res.OK() || res.Differences != c.n {
				t.Fatalf("a changed %s replayed with %d difference(s), want %d:\n%s", c.name, res.Differences, c.n, res.Report)
			}
			for _, w := range c.want {
				if !strings.Contains(res.Report, w) {
					t.Errorf("diff lacks %q:\n%s", w, res.Report)
				}
			}
		})
	}
}

func isPlaceholder(v any) bool {
	s, ok := v.(string)
	return ok && strings.HasPrefix(s, "${") && strings.HasSuffix(s, "}")
}

// containsInOrder reports whether want is a subsequence of got.
func containsInOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// clause: SIM-4
// Revealed straight after GetReward (no listing between), the rewardId in
// FetchRewardInfo's BDATA is captured from GetReward's answer, and the
// session replays clean on a fresh simulator.
func TestSession_SIM4_rewardIdCapturedFromGetReward(t *testing.T) {
	rec := simtest.New(t)
	ref, user := tokens(t, rec.Client)
	cards := cardsFor(t, rec.Client, ref, "VU-1", 1)
	fireImpressions(t, rec.Client, cards)
	if _, r, err := rec.Client.FetchRewardInfo(context.Background(), user, "VU-1", cards[0].RewardID); err != nil || !r.Status {
		t.Fatalf("reveal: %v %+v", err, r)
	}
	data := exportSession(t, rec, "reveal")
	var doc struct {
		Steps []struct {
			ID, Endpoint string
			Envelope     *struct{ Payload map[string]any }
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.Steps) != 5 {
		t.Fatalf("session: %v, %d steps", err, len(doc.Steps))
	}
	if doc.Steps[2].Endpoint != "GetReward" || doc.Steps[4].Endpoint != "FetchRewardInfo" ||
		doc.Steps[4].Envelope.Payload["rewardId"] != "${"+doc.Steps[2].ID+".rewards.0.rewardId}" {
		t.Fatalf("FetchRewardInfo's rewardId is not GetReward's: %s", data)
	}
	if res := replay(t, simtest.New(t), data, recordings.ReplayOptions{}); !res.OK() {
		t.Fatalf("replay:\n%s", res.Report)
	}
}
