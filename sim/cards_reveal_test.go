package sim_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/golden"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// clause: REV-1, REV-6
func TestFetchRewardInfo_REV1_firstRevealReturnsReward(t *testing.T) {
	e := newCardEnv(t) // default scenario
	id := e.issue("VU-1", "UPI")
	tok := e.userToken("VU-1")
	res, r, err := e.reveal(tok, "VU-1", id)
	if err != nil {
		t.Fatal(err)
	}
	if res.Envelope == nil || res.Envelope.SIGN == "" || res.Envelope.CHANNELID != "REWARDSIM" {
		t.Errorf("answer is not a signed envelope from REWARDSIM: %s", res.Body)
	}
	if !r.Status || r.RewardID != id || r.OfferTitle == "" || r.Terms == "" || r.RedeemSteps == "" ||
		r.CouponImage == "" || r.CouponCode == "" || len(r.ClickTrack) != 1 || !strings.HasPrefix(r.ClickTrack[0], e.s.RewardsURL+"/track/click") {
		t.Errorf("revealed reward lacks title, code, terms, steps, imagery or click URLs: %s", res.BDATA)
	}
	if st := e.stored("DEMOBANK", id); st.Reward == nil || st.Reward.OfferTitle != r.OfferTitle || st.Reward.CouponCode != r.CouponCode {
		t.Errorf("the choice was not recorded: %+v", st.Reward)
	}
	// Nothing is masked but the host: the pick and its code follow from the seed.
	golden.Check(t, "cards/FetchRewardInfo.revealed.json", maskURLs(e.s, res.BDATA))
}

// clause: REV-2
func TestFetchRewardInfo_REV2_secondRevealSwitch(t *testing.T) {
	eachSwitch(t, "secondReveal", []string{"failure", "status-false"}, func(t *testing.T, e *cardEnv, mode string) {
		id := e.issue("VU-1", "UPI")
		tok := e.userToken("VU-1")
		first := e.mustReveal(tok, "VU-1", id)
		res, r, err := e.reveal(tok, "VU-1", id)
		switch mode {
		case "failure":
			if !publisher.IsFailure(err, "Reward Already Revealed!") {
				t.Errorf("second reveal: %v", err)
			}
			golden.Check(t, "cards/FetchRewardInfo.second-reveal.failure.json", res.Body)
		default:
			if err != nil || r.Status || !r.IsAlreadyRewarded || r.RewardID != id || r.OfferTitle != "" || r.CouponCode != "" {
				t.Errorf("second reveal: %v %s", err, res.BDATA)
			}
			golden.Check(t, "cards/FetchRewardInfo.second-reveal.status-false.json", res.BDATA)
		}
		if st := e.stored("DEMOBANK", id); st.Reward.CouponCode != first.CouponCode {
			t.Errorf("second reveal changed the stored reward")
		}
	})
}

// clause: REV-3
func TestFetchRewardInfo_REV3_parallelFirstRevealsOneWinner(t *testing.T) {
	e := newCardScenario(t, "")
	id := e.issue("VU-1", "UPI")
	tok := e.userToken("VU-1")
	var won, already atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			_, r, err := e.reveal(tok, "VU-1", id)
			switch {
			case err == nil && r.Status && r.OfferTitle != "":
				won.Add(1)
			case publisher.IsFailure(err, "Reward Already Revealed!"):
				already.Add(1)
			default:
				t.Errorf("reveal: %v", err)
			}
		})
	}
	wg.Wait()
	if won.Load() != 1 || already.Load() != 15 {
		t.Errorf("16 parallel first reveals: %d got the reward, %d were told already revealed; want 1 and 15", won.Load(), already.Load())
	}
}

// clause: REV-6
func TestFetchRewardInfo_REV6_stockUnderConcurrencyThenFallback(t *testing.T) {
	e := newCardScenario(t, "")
	const n = 64
	type card struct {
		vid, tok string
		id       uint64
	}
	cards := make([]card, n)
	for i := range cards {
		vid := fmt.Sprintf("VU-%02d", i%8)
		cards[i] = card{vid: vid, id: e.issue(vid, "STOCK")}
	}
	toks := map[string]string{}
	for i := range cards {
		if toks[cards[i].vid] == "" {
			toks[cards[i].vid] = e.userToken(cards[i].vid)
		}
		cards[i].tok = toks[cards[i].vid]
	}
	var mu sync.Mutex
	codes := map[string]int{}
	fallbacks := 0
	var wg sync.WaitGroup
	for _, c := range cards {
		wg.Go(func() {
			_, r, err := e.reveal(c.tok, c.vid, c.id)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if r.IsFallback {
				fallbacks++
				if r.OfferTitle != "Better luck next time" {
					t.Errorf("fallback %+v is not the scenario's", r)
				}
			} else {
				codes[r.CouponCode]++
			}
		})
	}
	wg.Wait()
	if len(codes) != 5 || fallbacks != n-5 {
		t.Errorf("stock 5 under %d parallel reveals: handed out %v, %d fallbacks", n, codes, fallbacks)
	}
	for code, k := range codes {
		if k != 1 || !strings.HasPrefix(code, "FIVE-") {
			t.Errorf("coupon %s handed out %d times", code, k)
		}
	}
}

// clause: REV-6
func TestFetchRewardInfo_REV6_weightedCodesFromListAndPattern(t *testing.T) {
	e := newCardScenario(t, "")
	tok := e.userToken("VU-1")
	count := map[string]int{}
	seen := map[string]bool{}
	for range 40 {
		r := e.mustReveal(tok, "VU-1", e.issue("VU-1", "UPI"))
		count[r.OfferTitle]++
		if seen[r.CouponCode] {
			t.Errorf("coupon %s handed out twice", r.CouponCode)
		}
		seen[r.CouponCode] = true
		if r.OfferTitle == "Light" && !strings.HasPrefix(r.CouponCode, "L-") || r.OfferTitle == "Heavy" && !strings.HasPrefix(r.CouponCode, "H-") {
			t.Errorf("%s got code %s", r.OfferTitle, r.CouponCode)
		}
	}
	if count["Heavy"] <= count["Light"] || count["Light"] == 0 {
		t.Errorf("weights 3:1 gave %v", count)
	}
}

// clause: REV-6
func TestFetchRewardInfo_REV6_reproducibleAcrossFreshRuns(t *testing.T) {
	run := func() string {
		e := newCardEnv(t) // default scenario, seed 42
		var b strings.Builder
		for i := range 12 {
			vid := fmt.Sprintf("VU-%d", i%3)
			id := e.issue(vid, []string{"UPI", "IMPS", "RTGS", "WITHINBANK"}[i%4])
			_, r, err := e.reveal(e.userToken(vid), vid, id)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(r)
			b.Write(maskURLs(e.s, raw))
			b.WriteByte('\n')
		}
		return b.String()
	}
	a, b := run(), run()
	if a != b {
		t.Errorf("two fresh runs differ:\n%s\n---\n%s", a, b)
	}
	if !strings.Contains(a, "BREW-") && !strings.Contains(a, "FILM-") && !strings.Contains(a, "GROC-") {
		t.Errorf("no coupon codes in %s", a)
	}
}

// clause: REV-4
func TestFetchRewardInfo_REV4_onlyOwnUser(t *testing.T) {
	e := newCardScenario(t, "")
	id := e.issue("VU-OWNER", "UPI")
	thief := e.userToken("VU-THIEF")
	if _, _, err := e.reveal(thief, "VU-THIEF", id); !isInvalid(err, "has no card") {
		t.Errorf("another user's reveal: %v", err)
	}
	if _, _, err := e.reveal(thief, "VU-OWNER", id); !isInvalid(err, "virtualId is not the user of the user token") {
		t.Errorf("BDATA virtualId of the owner with the thief's token: %v", err)
	}
	_, list, err := e.s.Client.ListCards(e.ctx, thief, "")
	if err != nil || list.Total != 0 || len(list.Rewards) != 0 {
		t.Errorf("thief's list: %+v %v", list, err)
	}
	res, _, _ := e.s.Client.ListCards(e.ctx, thief, "virtualId=VU-OWNER")
	if res.StatusCode != 400 {
		t.Errorf("listing another user's virtualId: HTTP %d %s", res.StatusCode, res.Body)
	}
	if st := e.stored("DEMOBANK", id); st.Reward != nil {
		t.Errorf("a refused reveal chose a reward")
	}
	if _, _, err := e.reveal(e.userToken("VU-OWNER"), "VU-OWNER", id); err != nil {
		t.Errorf("owner's reveal: %v", err)
	}
	if _, _, err := e.reveal(e.userToken("VU-OWNER"), "VU-OWNER", 999); !isInvalid(err, "has no card") {
		t.Errorf("unknown rewardId: %v", err)
	}
	// Another channel's CHANNELID or channelName with this channel's user token is refused.
	other := e.other()
	if _, _, err := other.FetchRewardInfo(e.ctx, e.userToken("VU-OWNER"), "VU-OWNER", id); !isInvalid(err, "not the channel of the user token") {
		t.Errorf("OTHERBANK envelope with a DEMOBANK user token: %v", err)
	}
}

func isInvalid(err error, part string) bool {
	var fe *publisher.FailureError
	return errorsAs(err, &fe) && strings.HasPrefix(fe.ERRORSTRING, "Invalid Request!") && strings.Contains(fe.ERRORSTRING, part)
}

// clause: REV-5
func TestFetchRewardInfo_REV5_signSwitches(t *testing.T) {
	for _, required := range []bool{true, false} {
		for _, signed := range []bool{true, false} {
			t.Run(fmt.Sprintf("signRequired=%v,answerSigned=%v", required, signed), func(t *testing.T) {
				e := newCardScenario(t, fmt.Sprintf("    fetchSignRequired: %v\n    fetchAnswerSigned: %v", required, signed))
				tok := e.userToken("VU-1")
				id := e.issue("VU-1", "UPI")
				env, err := publisher.Seal(e.s.PublisherKey, "DEMOBANK", map[string]string{"rewardId": fmt.Sprint(id), "virtualId": "VU-1", "channelName": "DEMOBANK"})
				if err != nil {
					t.Fatal(err)
				}
				good := env
				env.SIGN = ""
				res, err := e.s.Client.PostEnvelope(e.ctx, e.s.RewardsURL+"/api/FetchRewardInfo", tok, env)
				if required && !publisher.IsFailure(err, "Signature Mismatch!") {
					t.Errorf("no SIGN, required: %v", err)
				}
				if !required {
					if res.Envelope == nil {
						t.Fatalf("no SIGN, optional: %v %s", err, res.Body)
					}
					id = e.issue("VU-1", "UPI")
					good, _ = publisher.Seal(e.s.PublisherKey, "DEMOBANK", map[string]string{"rewardId": fmt.Sprint(id), "virtualId": "VU-1", "channelName": "DEMOBANK"})
				}
				bad := good
				bad.SIGN = good.SIGN[:10] + "AAAA" + good.SIGN[14:]
				if _, err := e.s.Client.PostEnvelope(e.ctx, e.s.RewardsURL+"/api/FetchRewardInfo", tok, bad); !publisher.IsFailure(err, "Signature Mismatch!") {
					t.Errorf("a wrong SIGN is checked whenever present: %v", err)
				}
				res, err = e.s.Client.PostEnvelope(e.ctx, e.s.RewardsURL+"/api/FetchRewardInfo", tok, good)
				if signed && (err != nil || res.Envelope.SIGN == "") {
					t.Errorf("answer should be signed: %v %s", err, res.Body)
				}
				if !signed {
					if !strings.Contains(fmt.Sprint(err), "answer signature") || strings.Contains(string(res.Body), "SIGN") {
						t.Errorf("answer should be an unsigned envelope: %v %s", err, res.Body)
					}
					golden.Check(t, "cards/FetchRewardInfo.unsigned-answer.keys.json", maskAllKeys(t, res.Body))
				}
			})
		}
	}
}

func maskAllKeys(t *testing.T, raw []byte) []byte {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for k := range m {
		m[k] = "<masked>"
	}
	out, _ := json.Marshal(m)
	return out
}

// Card expiry is a scenario option (cardExpiry, default none).
func TestFetchRewardInfo_cardExpiry(t *testing.T) {
	e := newCardScenario(t, "")
	exp := e.issue("VU-1", "EXPIRE")
	keep := e.issue("VU-1", "UPI")
	e.s.Clock.Advance(2 * time.Hour)
	tok := e.userToken("VU-1")
	if _, _, err := e.reveal(tok, "VU-1", exp); !isInvalid(err, "expired") {
		t.Errorf("expired card: %v", err)
	}
	if _, _, err := e.reveal(tok, "VU-1", keep); err != nil {
		t.Errorf("card without expiry: %v", err)
	}
}

// clause: LIST-1
func TestListCards_LIST1_orderPagingDefaults(t *testing.T) {
	e := newCardScenario(t, "    listDefaultLimit: 3\n    listMaxLimit: 5")
	var all []uint64
	for range 7 {
		all = append(all, e.issue("VU-1", "UPI"))
	}
	e.issue("VU-2", "UPI")
	tok := e.userToken("VU-1")
	e.mustReveal(tok, "VU-1", all[1])
	e.mustReveal(tok, "VU-1", all[4])
	want := []uint64{all[0], all[2], all[3], all[5], all[6], all[1], all[4]}
	var got []uint64
	for page := 1; page <= 3; page++ {
		res, l, err := e.s.Client.ListCards(e.ctx, tok, fmt.Sprintf("page=%d", page))
		if err != nil || !l.Status || l.Limit != 3 || l.Page != page || l.Total != 7 {
			t.Fatalf("page %d: %v %s", page, err, res.Body)
		}
		for _, c := range l.Rewards {
			got = append(got, c.RewardID)
			if c.IsAlreadyRewarded != (c.OfferTitle != "") {
				t.Errorf("card %d: revealed %v but details %q", c.RewardID, c.IsAlreadyRewarded, c.OfferTitle)
			}
		}
		if page == 3 {
			golden.Check(t, "cards/GetAllScratchCardsByUserId.page3.json", maskURLs(e.s, res.Body))
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("listing order %v, want unscratched first then revealed %v", got, want)
	}
	_, l, _ := e.s.Client.ListCards(e.ctx, tok, "page=9")
	if len(l.Rewards) != 0 || l.Total != 7 {
		t.Errorf("page past the end: %+v", l)
	}
	_, l, _ = e.s.Client.ListCards(e.ctx, e.userToken("VU-NONE"), "")
	if !l.Status || l.Total != 0 || l.Rewards == nil {
		t.Errorf("user without cards: %+v", l)
	}
}

// clause: LIST-1
func TestListCards_LIST1_badValuesSwitch(t *testing.T) {
	for _, mode := range []string{"reject", "clamp"} {
		t.Run(mode, func(t *testing.T) {
			e := newCardScenario(t, "    listDefaultLimit: 4\n    listMaxLimit: 5\n    listBadValues: "+mode)
			for range 6 {
				e.issue("VU-1", "UPI")
			}
			tok := e.userToken("VU-1")
			cases := []struct {
				q                     string
				clampPage, clampLimit int
			}{
				{"page=0", 1, 4}, {"page=-1", 1, 4}, {"page=x", 1, 4},
				{"limit=0", 1, 4}, {"limit=abc", 1, 4}, {"limit=6", 1, 5}, {"limit=1000", 1, 5},
			}
			for _, tc := range cases {
				res, l, err := e.s.Client.ListCards(e.ctx, tok, tc.q)
				if err != nil {
					t.Fatal(err)
				}
				if mode == "reject" {
					if res.StatusCode != http.StatusBadRequest || l.Status || len(l.Rewards) != 0 {
						t.Errorf("%s: HTTP %d %s", tc.q, res.StatusCode, res.Body)
					}
					continue
				}
				// a bad value takes the default, one over the maximum the maximum.
				if res.StatusCode != 200 || l.Page != tc.clampPage || l.Limit != tc.clampLimit || len(l.Rewards) != tc.clampLimit {
					t.Errorf("%s: HTTP %d page %d limit %d", tc.q, res.StatusCode, l.Page, l.Limit)
				}
			}
			if mode == "reject" {
				res, _, _ := e.s.Client.ListCards(e.ctx, tok, "limit=6")
				golden.Check(t, "cards/GetAllScratchCardsByUserId.bad-limit.json", res.Body)
			}
		})
	}
}
