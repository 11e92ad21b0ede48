package sim_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/golden"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// maskURLs replaces the harness's random base URL so golden files are stable.
func maskURLs(s *simtest.Server, raw []byte) []byte {
	return []byte(strings.ReplaceAll(string(raw), s.RewardsURL, "http://rewards.test"))
}

// clause: GR-2, TRK-1
func TestGetReward_GR2_eligibleCardsNoRewardYet(t *testing.T) {
	e := newCardEnv(t) // default scenario: UPI, WITHINBANK, IMPS, RTGS of DEMOBANK
	for i, trig := range []string{"UPI", "WITHINBANK", "IMPS", "RTGS"} {
		res, ans := e.getReward(e.req("VU-NEW", trig))
		if res.StatusCode != 200 || !ans.Status || ans.Message != "success" || len(ans.Rewards) != 1 {
			t.Fatalf("%s: HTTP %d %s", trig, res.StatusCode, res.Body)
		}
		c := ans.Rewards[0]
		if c.RewardID != uint64(i+1) || c.IsAlreadyRewarded || c.CreatedDateTime != "2026-01-15 10:00:00.000" {
			t.Errorf("%s: card %+v", trig, c)
		}
		if c.OfferTitle != "" || c.IsSeen != nil {
			t.Errorf("%s: an unscratched card carries detail fields: %s", trig, res.Body)
		}
		for _, u := range append(c.TrackLink, ans.Clicktrack...) {
			if !strings.HasPrefix(u, e.s.RewardsURL+"/track/") {
				t.Errorf("%s: tracking URL %q is not on the simulator", trig, u)
			}
		}
		if st := e.stored("DEMOBANK", c.RewardID); st.Reward != nil {
			t.Errorf("%s: a reward was chosen at issue: %+v", trig, st.Reward)
		}
		if i == 0 {
			golden.Check(t, "cards/GetReward.eligible.json", maskURLs(e.s, res.Body))
		}
	}
}

// clause: GR-1
func TestGetReward_GR1_missingOrMistypedFields(t *testing.T) {
	for _, status := range []int{400, 200} {
		t.Run(fmt.Sprint("invalidRequestStatus=", status), func(t *testing.T) {
			e := newCardScenario(t, fmt.Sprintf("    invalidRequestStatus: %d", status))
			cases := []struct {
				name string
				edit func(map[string]any)
				want string
			}{
				{"no channelName", func(m map[string]any) { delete(m, "channelName") }, "channelName: is required"},
				{"no virtualId", func(m map[string]any) { delete(m, "virtualId") }, "virtualId: is required"},
				{"no triggerEventType", func(m map[string]any) { delete(m, "triggerEventType") }, "triggerEventType: is required"},
				{"no extTransactionId", func(m map[string]any) { delete(m, "extTransactionId") }, "extTransactionId: is required"},
				{"no dateandtime", func(m map[string]any) { delete(m, "dateandtime") }, "dateandtime: is required"},
				{"amount as string", func(m map[string]any) { m["amount"] = "250.50" }, "amount"},
				{"virtualId as number", func(m map[string]any) { m["virtualId"] = 42 }, "virtualId"},
				{"additionalParams as number", func(m map[string]any) { m["additionalParams"] = 7 }, "additionalParams"},
				{"additionalParams not JSON", func(m map[string]any) { m["additionalParams"] = "city=Pune" }, "additionalParams"},
				{"empty extTransactionId", func(m map[string]any) { m["extTransactionId"] = "" }, "extTransactionId"},
			}
			for _, tc := range cases {
				body := e.req("VU-1", "UPI")
				tc.edit(body)
				res, ans := e.getReward(body)
				if res.StatusCode != status || ans.Status || !strings.Contains(ans.Message, tc.want) || len(ans.Rewards) != 0 {
					t.Errorf("%s: HTTP %d %s, want %d naming %q", tc.name, res.StatusCode, res.Body, status, tc.want)
				}
			}
			res, ans := e.getReward(nil)
			if res.StatusCode != status || ans.Status {
				t.Errorf("null body: HTTP %d %s", res.StatusCode, res.Body)
			}
			raw, _ := e.s.Client.Do(e.ctx, "POST", e.s.RewardsURL+"/api/GetReward", http.Header{"Authorization": {"Bearer " + e.ref}}, []byte("{not json"))
			if raw.StatusCode != status || !strings.Contains(string(raw.Body), "not valid JSON") {
				t.Errorf("broken JSON: HTTP %d %s", raw.StatusCode, raw.Body)
			}
			if status == 400 {
				golden.Check(t, "cards/GetReward.invalid.json", raw.Body)
			}
			// Optional fields are optional.
			body := e.req("VU-1", "UPI")
			delete(body, "amount")
			if _, ans := e.getReward(body); !ans.Status {
				t.Errorf("without amount (optional by default): not eligible")
			}
		})
	}
}

// clause: GR-3
func TestGetReward_GR3_notEligibleIsNormal(t *testing.T) {
	e := newCardScenario(t, "")
	cases := []struct {
		name string
		body func() map[string]any
		want string
	}{
		{"unknown trigger", func() map[string]any { return e.req("VU-1", "NOPE") }, "no campaign for trigger"},
		{"campaign not yet active", func() map[string]any { return e.req("VU-1", "LATER") }, "not active"},
		{"targeting: state missing", func() map[string]any { return e.req("VU-1", "TARGETED") }, "targeting"},
		{"targeting: wrong state", func() map[string]any {
			m := e.req("VU-1", "TARGETED")
			m["additionalParams"] = `{"state":"MH","age":"30"}`
			return m
		}, "targeting"},
		{"targeting: too young", func() map[string]any {
			m := e.req("VU-1", "TARGETED")
			m["additionalParams"] = `{"state":"KA","age":17}`
			return m
		}, "targeting"},
		{"sub-trigger not listed", func() map[string]any {
			m := e.req("VU-1", "SUB")
			m["subTriggerEventType"] = "P2P"
			return m
		}, "sub-trigger"},
		{"amount below lowest tier", func() map[string]any {
			m := e.req("VU-1", "TIER")
			m["amount"] = 99.99
			return m
		}, "below its lowest tier"},
	}
	for _, tc := range cases {
		res, ans := e.getReward(tc.body())
		if res.StatusCode != 200 || ans.Status || ans.Message != "failure" || len(ans.Rewards) != 0 || len(ans.Clicktrack) != 0 {
			t.Errorf("%s: HTTP %d %s", tc.name, res.StatusCode, res.Body)
		}
		if !strings.Contains(reasonOf(res), tc.want) {
			t.Errorf("%s: reason %q, want it to mention %q", tc.name, reasonOf(res), tc.want)
		}
	}
	// The positive counterparts are eligible.
	m := e.req("VU-1", "TARGETED")
	m["additionalParams"] = `{"state":"KA","age":"30"}`
	if _, ans := e.getReward(m); !ans.Status {
		t.Errorf("targeted user KA/30: not eligible")
	}
	m = e.req("VU-1", "SUB")
	m["subTriggerEventType"] = "P2M"
	if _, ans := e.getReward(m); !ans.Status {
		t.Errorf("sub-trigger P2M: not eligible")
	}

	// Frequency cap: 2 per 24h on the simulated clock.
	for i := range 3 {
		res, ans := e.getReward(e.req("VU-CAP", "CAPPED"))
		if ans.Status != (i < 2) {
			t.Errorf("capped event %d: status %v: %s", i+1, ans.Status, res.Body)
		}
		if i == 2 && !strings.Contains(reasonOf(res), "frequency cap") {
			t.Errorf("third event: reason %q", reasonOf(res))
		}
	}
	if _, ans := e.getReward(e.req("VU-OTHER", "CAPPED")); !ans.Status {
		t.Errorf("cap is per user: another user was refused")
	}
	e.s.Clock.Advance(24*time.Hour + time.Second)
	e.ref = e.refToken(e.s.Client)
	if _, ans := e.getReward(e.req("VU-CAP", "CAPPED")); !ans.Status {
		t.Errorf("after the period the capped user is eligible again")
	}

	// Campaign window: active 09:00 to 12:00 on the simulated clock.
	e2 := newCardScenario(t, "")
	if _, ans := e2.getReward(e2.req("VU-1", "WINDOW")); !ans.Status {
		t.Errorf("inside the window: not eligible")
	}
	e2.s.Clock.Advance(2 * time.Hour)
	e2.ref = e2.refToken(e2.s.Client)
	res, ans := e2.getReward(e2.req("VU-1", "WINDOW"))
	if ans.Status || !strings.Contains(reasonOf(res), "not active") {
		t.Errorf("after the window: %s (%s)", res.Body, reasonOf(res))
	}
	golden.Check(t, "cards/GetReward.not-eligible.json", res.Body)
}

// clause: GR-4
func TestGetReward_GR4_duplicatesGetTheSameCardsConcurrently(t *testing.T) {
	e := newCardScenario(t, "")
	body := e.req("VU-1", "MULTI")
	const n = 32
	answers := make([]publisher.GetRewardAnswer, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, ans, err := e.s.Client.GetReward(e.ctx, e.ref, body)
			if err != nil {
				t.Error(err)
			}
			answers[i] = ans
		})
	}
	wg.Wait()
	want := fmt.Sprint(rewardIDs(answers[0].Rewards))
	if len(answers[0].Rewards) != 3 {
		t.Fatalf("MULTI issues 3 cards, got %v", want)
	}
	for i, a := range answers {
		if got := fmt.Sprint(rewardIDs(a.Rewards)); got != want || !a.Status {
			t.Errorf("call %d: cards %s, want %s", i, got, want)
		}
	}
	_, list, err := e.s.Client.ListCards(e.ctx, e.userToken("VU-1"), "limit=50")
	if err != nil || list.Total != 3 {
		t.Errorf("user has %d cards after 32 duplicates, want exactly one set of 3 (%v)", list.Total, err)
	}
	// The key is per extTransactionId: a new one creates new cards.
	body["extTransactionId"] = "TXN-NEW"
	if _, ans := e.getReward(body); fmt.Sprint(rewardIDs(ans.Rewards)) == want {
		t.Errorf("a new extTransactionId got the old cards")
	}
}

func rewardIDs(cs []publisher.Card) []uint64 {
	out := []uint64{}
	for _, c := range cs {
		out = append(out, c.RewardID)
	}
	return out
}

// clause: GR-5
func TestGetReward_GR5_amount(t *testing.T) {
	for _, required := range []bool{false, true} {
		t.Run(fmt.Sprint("amountRequired=", required), func(t *testing.T) {
			e := newCardScenario(t, fmt.Sprintf("    amountRequired: %v", required))
			body := e.req("VU-1", "UPI")
			delete(body, "amount")
			res, ans := e.getReward(body)
			if required && (res.StatusCode != 400 || !strings.Contains(ans.Message, "amount: is required")) {
				t.Errorf("amount missing, required: HTTP %d %s", res.StatusCode, res.Body)
			}
			if !required && !ans.Status {
				t.Errorf("amount missing, optional: %s", res.Body)
			}
			for _, tc := range []struct {
				raw string
				ok  bool
			}{{"100", true}, {"100.5", true}, {"100.50", true}, {"100.505", false}, {"-1", false}, {"1e3", false}} {
				raw := fmt.Sprintf(`{"channelName":"DEMOBANK","virtualId":"VU-1","triggerEventType":"UPI","extTransactionId":"A%s","dateandtime":"15012026100000","amount":%s}`, strings.NewReplacer(".", "", "-", "").Replace(tc.raw), tc.raw)
				res, ans := e.getReward(rawJSON(raw))
				if ans.Status != tc.ok {
					t.Errorf("amount %s: HTTP %d %s, want accepted=%v", tc.raw, res.StatusCode, res.Body, tc.ok)
				}
			}
		})
	}
}

// rawJSON is a body sent as-is.
type rawJSON string

func (j rawJSON) MarshalJSON() ([]byte, error) { return []byte(j), nil }

// clause: GR-6
func TestGetReward_GR6_dateandtimeFormats(t *testing.T) {
	eachSwitch(t, "dateandtime", []string{"reject", "now", "accept"}, func(t *testing.T, e *cardEnv, mode string) {
		good := e.req("VU-1", "UPI")
		if _, ans := e.getReward(good); !ans.Status {
			t.Fatalf("DDMMYYYYHHMMSS refused")
		}
		for _, bad := range []string{"2026-01-15 10:00:00", "15/01/2026", "32012026100000", "150120261000"} {
			body := e.req("VU-1", "UPI")
			body["dateandtime"] = bad
			res, ans := e.getReward(body)
			switch mode {
			case "reject":
				if res.StatusCode != 400 || !strings.Contains(ans.Message, "DDMMYYYYHHMMSS") {
					t.Errorf("%q: HTTP %d %s", bad, res.StatusCode, res.Body)
				}
			default:
				if !ans.Status {
					t.Fatalf("%q: %s", bad, res.Body)
				}
				want := bad
				if mode == "now" {
					want = "15012026100000" // the simulated clock
				}
				if got := e.stored("DEMOBANK", ans.Rewards[0].RewardID).DateAndTime; got != want {
					t.Errorf("%q stored as %q, want %q", bad, got, want)
				}
			}
		}
	})
}

// clause: GR-7
func TestGetReward_GR7_additionalParams(t *testing.T) {
	eachSwitch(t, "nestedAdditionalParams", []string{"reject", "accept"}, func(t *testing.T, e *cardEnv, mode string) {
		body := e.req("VU-1", "CITY")
		body["additionalParams"] = map[string]any{"city": "Pune", "age": 30}
		res, ans := e.getReward(body)
		if mode == "reject" {
			if res.StatusCode != 400 || !strings.Contains(ans.Message, "nested object") {
				t.Errorf("nested object: HTTP %d %s", res.StatusCode, res.Body)
			}
		} else if !ans.Status {
			t.Errorf("nested object accepted by switch: %s", res.Body)
		} else if p := e.stored("DEMOBANK", ans.Rewards[0].RewardID).Params; p["city"] != "Pune" || p["age"] != "30" {
			t.Errorf("nested params stored as %v", p)
		}
		// The JSON-encoded string is stored with the card and applied at reveal.
		body = e.req("VU-1", "CITY")
		body["additionalParams"] = `{"city":"Pune","pincode":"411001","lat":18.52}`
		_, ans = e.getReward(body)
		pune := ans.Rewards[0].RewardID
		if p := e.stored("DEMOBANK", pune).Params; p["pincode"] != "411001" || p["lat"] != "18.52" {
			t.Errorf("params stored as %v", p)
		}
		_, ans = e.getReward(e.req("VU-1", "CITY"))
		none := ans.Rewards[0].RewardID
		tok := e.userToken("VU-1")
		if r := e.mustReveal(tok, "VU-1", pune); r.OfferTitle != "Pune only" || r.IsFallback {
			t.Errorf("Pune card revealed %+v, want the Pune-only entry", r)
		}
		if r := e.mustReveal(tok, "VU-1", none); !r.IsFallback {
			t.Errorf("card without city revealed %+v, want the fallback", r)
		}
	})
}

// clause: GR-8
func TestGetReward_GR8_unscratchedFirstDuplicateShowsRevealed(t *testing.T) {
	e := newCardScenario(t, "")
	body := e.req("VU-1", "MULTI")
	_, ans := e.getReward(body)
	first := ans.Rewards[0].RewardID
	r := e.mustReveal(e.userToken("VU-1"), "VU-1", first)
	res, ans := e.getReward(body)
	got := rewardIDs(ans.Rewards)
	if fmt.Sprint(got) != fmt.Sprint([]uint64{first + 1, first + 2, first}) {
		t.Fatalf("duplicate after reveal lists %v, want unscratched first then %d", got, first)
	}
	last := ans.Rewards[2]
	if !last.IsAlreadyRewarded || last.OfferTitle != r.OfferTitle || last.CouponCode != r.CouponCode || last.IsSeen == nil || !*last.IsSeen {
		t.Errorf("revealed card in the duplicate's answer: %+v", last)
	}
	if ans.Rewards[0].IsAlreadyRewarded || ans.Rewards[0].OfferTitle != "" {
		t.Errorf("unscratched card carries details: %+v", ans.Rewards[0])
	}
	golden.Check(t, "cards/GetReward.duplicate-after-reveal.json", maskURLs(e.s, res.Body))
}

// The channelName of the body against the reference token's channel.
func TestGetReward_channelMismatchSwitch(t *testing.T) {
	eachSwitch(t, "channelMismatch", []string{"refuse", "use-token"}, func(t *testing.T, e *cardEnv, mode string) {
		body := e.req("VU-1", "UPI")
		body["channelName"] = "OTHERBANK"
		res, ans := e.getReward(body)
		if mode == "refuse" && (res.StatusCode != 400 || !strings.Contains(ans.Message, "not the channel of the reference token")) {
			t.Errorf("refuse: HTTP %d %s", res.StatusCode, res.Body)
		}
		if mode == "use-token" {
			if !ans.Status {
				t.Fatalf("use-token: %s", res.Body)
			}
			e.stored("DEMOBANK", ans.Rewards[0].RewardID) // issued in the token's channel
		}
	})
}

// Channels never see each other's cards: numbering, duplicates and reveals are per channel.
func TestCards_channelsAreIsolated(t *testing.T) {
	e := newCardScenario(t, "")
	other := e.other()
	otherRef := e.refToken(other)
	body := e.req("VU-1", "UPI")
	_, a := e.getReward(body)
	body["channelName"] = "OTHERBANK"
	_, b, err := other.GetReward(e.ctx, otherRef, body)
	if err != nil || !b.Status {
		t.Fatalf("OTHERBANK GetReward: %v %+v", err, b)
	}
	if a.Rewards[0].RewardID != 1 || b.Rewards[0].RewardID != 1 {
		t.Errorf("rewardIds %d and %d: each channel numbers its own cards from 1", a.Rewards[0].RewardID, b.Rewards[0].RewardID)
	}
	// Same extTransactionId in another channel is not a duplicate.
	if e.stored("OTHERBANK", 1).VirtualID != "VU-1" {
		t.Errorf("OTHERBANK card not stored in its channel")
	}
	ut, err := other.UserToken(e.ctx, "VU-1")
	if err != nil {
		t.Fatal(err)
	}
	e.mustReveal(e.userToken("VU-1"), "VU-1", 1)
	_, list, _ := other.ListCards(e.ctx, ut.Token, "")
	if list.Total != 1 || list.Rewards[0].IsAlreadyRewarded {
		t.Errorf("DEMOBANK's reveal shows in OTHERBANK's list: %+v", list)
	}
}

// clause: AUTH-1, AUTH-2, TOK-3, TOK-4
func TestCards_AUTH1_AUTH2_bearerTokens(t *testing.T) {
	e := newCardScenario(t, "")
	id := e.issue("VU-1", "UPI")
	user := e.userToken("VU-1")
	is401 := func(err error) bool {
		var he *publisher.HTTPError
		return errors.As(err, &he) && he.StatusCode == 401
	}
	if _, _, err := e.s.Client.GetReward(e.ctx, user, e.req("VU-1", "UPI")); !is401(err) {
		t.Errorf("user token to GetReward: %v, want 401", err)
	}
	if _, _, err := e.reveal(e.ref, "VU-1", id); !is401(err) {
		t.Errorf("reference token to FetchRewardInfo: %v, want 401", err)
	}
	if _, _, err := e.s.Client.ListCards(e.ctx, e.ref, ""); !is401(err) {
		t.Errorf("reference token to listing: %v, want 401", err)
	}
	for _, bad := range []string{"", "unknown-token-value-xxxxxxxx"} {
		if _, _, err := e.s.Client.GetReward(e.ctx, bad, e.req("VU-1", "UPI")); !is401(err) {
			t.Errorf("GetReward with %q: %v", bad, err)
		}
		if _, _, err := e.reveal(bad, "VU-1", id); !is401(err) {
			t.Errorf("FetchRewardInfo with %q: %v", bad, err)
		}
		if _, _, err := e.s.Client.ListCards(e.ctx, bad, ""); !is401(err) {
			t.Errorf("listing with %q: %v", bad, err)
		}
	}
	e.s.Clock.Advance(2 * time.Hour) // past both default lifetimes
	if _, _, err := e.s.Client.GetReward(e.ctx, e.ref, e.req("VU-1", "UPI")); !is401(err) {
		t.Errorf("expired reference token: %v", err)
	}
	if _, _, err := e.reveal(user, "VU-1", id); !is401(err) {
		t.Errorf("expired user token to FetchRewardInfo: %v", err)
	}
	if _, _, err := e.s.Client.ListCards(e.ctx, user, ""); !is401(err) {
		t.Errorf("expired user token to listing: %v", err)
	}
}

// clause: GR-4, BANK-3, SDK-1
// Idempotency is per extTransactionId, but a duplicate from another user never
// hands them the first user's cards (nor, once revealed, its coupon code):
// it is refused as bad input in each endpoint's shape.
func TestGetReward_GR4_duplicateByAnotherUserIsRefused(t *testing.T) {
	e := newCardEnv(t)
	first := e.getRewardBody(t, "VU-A", "SHARED-1")
	if !first.Status {
		t.Fatal("first GetReward not eligible")
	}
	res, _, _ := e.s.Client.GetReward(e.ctx, e.ref, map[string]any{
		"channelName": "DEMOBANK", "virtualId": "VU-B", "triggerEventType": "UPI",
		"extTransactionId": "SHARED-1", "amount": 250.5, "dateandtime": "15012026100000",
	})
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(res.Body), "first used by another user") || strings.Contains(string(res.Body), `"rewardId"`) {
		t.Fatalf("GetReward duplicate by another user: HTTP %d %s", res.StatusCode, res.Body)
	}

	if _, _, err := e.s.Client.BankCard(e.ctx, bankReq("VU-A", "SHARED-2")); err != nil {
		t.Fatal(err)
	}
	_, _, err := e.s.Client.BankCard(e.ctx, bankReq("VU-B", "SHARED-2"))
	var fe *publisher.FailureError
	if !errorsAs(err, &fe) || !strings.Contains(fe.ERRORSTRING, "first used by another user") {
		t.Fatalf("GetScratchCardForBank duplicate by another user: %v", err)
	}

	req := sdkReq("SHARED3")
	if code, ans := e.sdkIssue("/sdk/getScratchCardDetails", req); code != 200 || !ans.Status {
		t.Fatalf("first SDK issuance: HTTP %d %+v", code, ans)
	}
	req["virtualId"] = "someone-else"
	if code, ans := e.sdkIssue("/sdk/getScratchCardDetails", req); code != http.StatusBadRequest || ans.DeepLink != "" {
		t.Fatalf("SDK duplicate by another user: HTTP %d %+v", code, ans)
	}
}
