package sim_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/browser"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

const wait = 10 * time.Second

// A fresh session opens the hosted microsite on the bank host: the user's
// cards, unscratched first, impressions tracked; scratching one reveals it
// through the one-shot path (FetchRewardInfo then refuses a second reveal),
// tracks the click, shows coupon, terms, steps and imagery, and fires both
// reveal callbacks; a reload shows it revealed.
//
// clause: SESS-3
// clause: SDK-3
func TestMicrosite_SESS3_SDK3_scratchInRealBrowser(t *testing.T) {
	e := newCardEnv(t)
	const vid = "browser-user-1"
	a, b2, done := e.issue(vid, "UPI"), e.issue(vid, "IMPS"), e.issue(vid, "RTGS")
	tok := e.userToken(vid)
	e.mustReveal(tok, vid, done)
	page := e.micrositeURL(e.session(vid), vid)

	b := browser.Start(t)
	b.Open(page)
	b.WaitFor(`#app[data-state="ready"]`, wait)
	var order []string
	b.Eval(`return Array.from(document.querySelectorAll('.tile')).map(function (t) { return t.dataset.rewardId + ':' + (t.classList.contains('revealed') ? 'revealed' : 'unscratched'); })`, &order)
	want := []string{fmt.Sprintf("%d:unscratched", a), fmt.Sprintf("%d:unscratched", b2), fmt.Sprintf("%d:revealed", done)}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Fatalf("tiles = %v, want %v (unscratched first)", order, want)
	}
	for _, id := range []uint64{a, b2, done} {
		b.WaitFor(fmt.Sprintf(`#card-%d[data-impression="sent"]`, id), wait)
		if tr := e.tracking(id); tr.Impressions < 1 {
			t.Fatalf("card %d: impressions = %d after the page showed it", id, tr.Impressions)
		}
	}
	if tr := e.tracking(a); tr.Clicks != 0 {
		t.Fatalf("card %d: clicks = %d before scratching", a, tr.Clicks)
	}
	b.Screenshot(screenshotDir, "microsite-cards")

	b.Eval(fakeBridges("HandleDemobankScDetails"), nil)
	b.MustFind(fmt.Sprintf(`#card-%d .scratch`, a)).Click()
	b.WaitFor(fmt.Sprintf(`#card-%d.revealed[data-reveal-done="1"]`, a), wait)
	stored := e.stored("DEMOBANK", a)
	if stored.Reward == nil || stored.Reward.CouponCode == "" {
		t.Fatalf("card %d not revealed in the store after scratching: %+v", a, stored)
	}
	detail := fmt.Sprintf(`#card-%d .detail:not([hidden])`, a)
	if got := b.WaitFor(detail+" .coupon-code", wait).Text(); got != stored.Reward.CouponCode {
		t.Fatalf("coupon shown %q, stored %q", got, stored.Reward.CouponCode)
	}
	for _, part := range []string{".offer-title", ".steps li", ".terms", ".hero", ".valid"} {
		if n := b.Count(detail + " " + part); n == 0 {
			t.Errorf("revealed card shows no %s", part)
		}
	}
	// The revealed card's images start loading at the reveal: give them
	// a liveness bound, not an instant (a loaded machine is slow).
	var imagesOK bool
	for until := time.Now().Add(wait); ; time.Sleep(50 * time.Millisecond) {
		b.Eval(`return Array.from(document.querySelectorAll('img')).every(function (i) { return i.complete && i.naturalWidth > 0 && !i.dataset.fallback; })`, &imagesOK)
		if imagesOK || time.Now().After(until) {
			break
		}
	}
	if !imagesOK {
		t.Error("an image of the page did not load from the simulator")
	}
	b.Screenshot(screenshotDir, "microsite-revealed")

	tr := e.tracking(a)
	if tr.Clicks != 1 {
		t.Fatalf("card %d: clicks = %d after one scratch, want 1 (%+v)", a, tr.Clicks, tr.Events)
	}
	if _, _, err := e.reveal(tok, vid, a); !publisher.IsFailure(err, "Reward Already Revealed!") {
		t.Fatalf("FetchRewardInfo after the page's reveal: %v, want the second-reveal failure (same one-shot path)", err)
	}

	android, ios := callbacks(t, b)
	if len(android) != 1 || len(ios) != 1 {
		t.Fatalf("callbacks: android %d, ios %d, want 1 each", len(android), len(ios))
	}
	if ios[0]["scDetails"] != android[0] {
		t.Fatalf("iOS scDetails %v differs from Android onReveal %q", ios[0]["scDetails"], android[0])
	}
	if err := schemasForTest(t).ValidateJSON("sdk-reveal-callback", []byte(android[0])); err != nil {
		t.Fatalf("callback payload outside its schema: %v\n%s", err, android[0])
	}
	var cb struct {
		RewardID   uint64 `json:"rewardId"`
		VirtualID  string `json:"virtualId"`
		CouponCode string `json:"couponCode"`
		OfferTitle string `json:"offerTitle"`
		IsFallback bool   `json:"isFallback"`
	}
	_ = json.Unmarshal([]byte(android[0]), &cb)
	if cb.RewardID != a || cb.VirtualID != vid || cb.CouponCode != stored.Reward.CouponCode || cb.OfferTitle != stored.Reward.OfferTitle || cb.IsFallback {
		t.Fatalf("callback payload %+v does not describe card %d (%+v)", cb, a, stored.Reward)
	}

	b.Open(page)
	b.WaitFor(`#app[data-state="ready"]`, wait)
	if got := b.MustFind(fmt.Sprintf(`#card-%d.revealed .body .coupon-code`, a)).Text(); got != stored.Reward.CouponCode {
		t.Fatalf("after reload coupon %q, want %q", got, stored.Reward.CouponCode)
	}
	if n := b.Count(".tile.unscratched"); n != 1 {
		t.Fatalf("after reload %d unscratched tiles, want 1", n)
	}
	b.Screenshot(screenshotDir, "microsite-reload")
	b.MustFind(fmt.Sprintf(`#card-%d [data-action="details"]`, a)).Click()
	b.WaitFor(detail+" .coupon-code", wait)
	if android, _ := callbacks(t, b); len(android) != 0 {
		t.Fatal("a reload fired reveal callbacks")
	}
}

// A mismatched, unknown or missing pair leaves the blank initial screen,
// in the browser as over HTTP.
//
// clause: SESS-2
func TestMicrosite_SESS2_mismatchedPairBlankInBrowser(t *testing.T) {
	e := newCardEnv(t)
	e.issue("user-a", "UPI")
	sess := e.session("user-a")
	b := browser.Start(t)
	b.Open(e.micrositeURL(sess, "user-b"))
	b.WaitFor(`#app[data-state="blank"]`, wait)
	var text string
	b.Eval(`return document.body.innerText`, &text)
	if strings.TrimSpace(text) != "" || b.Count(".tile") != 0 {
		t.Fatalf("blank screen shows %q and %d tiles", text, b.Count(".tile"))
	}
	b.Screenshot(screenshotDir, "microsite-blank")
}

// The SDK launch with a DeeplinkInfo from GetScratchCardForBank opens
// that card; an already revealed card opens its details.
//
// clause: SDK-2
func TestSDKLaunch_SDK2_deepLinkOpensCardInBrowser(t *testing.T) {
	e := newCardEnv(t)
	const vid = "launch-user"
	e.issue(vid, "UPI")
	_, card, err := e.s.Client.BankCard(e.ctx, publisher.BankCardRequest{
		VirtualID: vid, TransDateAndTime: "2026-01-15 10:00:00", Amount: "500", MCC: "5411",
		ExtTransactionID: "BANKLAUNCH1", CampaignID: "CAMP-DEMO", DeviceToken: "dev-1",
	})
	if err != nil || !card.Status {
		t.Fatalf("GetScratchCardForBank: %v %+v", err, card)
	}
	u, _ := url.Parse(card.DeepLink)
	id := u.Query().Get("rewardId")
	payload, _ := json.Marshal(map[string]any{"Component": "SCRATCHCARD", "IsEmployee": false, "Language": "en", "DeeplinkInfo": card.DeepLink, "customerId": "CUST-1"})
	launch := e.s.BankURL + "/sdk/launch?" + url.Values{"virtualId": {vid}, "sessionId": {e.session(vid)}, "channel": {"DEMOBANK"}, "payload": {string(payload)}}.Encode()

	b := browser.Start(t)
	b.Open(launch)
	b.WaitFor(`#app[data-state="ready"][data-customer-id="CUST-1"]`, wait)
	b.WaitFor(`#card-`+id+`.unscratched.focus`, wait)
	if n := b.Count(".tile.focus"); n != 1 {
		t.Fatalf("%d focused cards, want 1", n)
	}
	if !strings.Contains(b.MustFind("#note").Text(), "#"+id) {
		t.Fatal("the note does not name the deep-linked card")
	}
	b.Screenshot(screenshotDir, "sdk-launch-deeplink")
	b.Eval(fakeBridges("HandleDemobankScDetails"), nil)
	b.MustFind(`#card-` + id + ` .scratch`).Click()
	b.WaitFor(`#card-`+id+`.revealed[data-reveal-done="1"]`, wait)
	if android, ios := callbacks(t, b); len(android) != 1 || len(ios) != 1 {
		t.Fatalf("callbacks after a launched reveal: %d, %d", len(android), len(ios))
	}
	b.Open(launch)
	b.WaitFor(`#card-`+id+`.revealed.focus .detail:not([hidden]) .coupon-code`, wait)
}

// A miss is delivered through the same callbacks (switches.sdk.missCallback
// deliver, the default); imagery the page cannot load (here the
// campaign's banner on an unreachable host) gives way to a
// simulator-served placeholder, so the page stays whole offline.
//
// clause: SDK-3
func TestMicrosite_SDK3_missInBrowser(t *testing.T) {
	e := newCardScenario(t, "")
	for range 5 { // use up the pool's stock of five
		e.mustReveal(e.userToken("lucky"), "lucky", e.issue("lucky", "STOCK"))
	}
	miss := e.issue("unlucky", "STOCK")
	b := browser.Start(t)
	b.Open(e.micrositeURL(e.session("unlucky"), "unlucky"))
	b.WaitFor(fmt.Sprintf(`#card-%d[data-impression="sent"] img[data-fallback="1"]`, miss), wait)
	b.Eval(fakeBridges("HandleDEMOBANKScDetails"), nil) // no sdk.partners: Partner is the channel name
	b.MustFind(fmt.Sprintf(`#card-%d .scratch`, miss)).Click()
	b.WaitFor(fmt.Sprintf(`#card-%d.revealed.fallback[data-reveal-done="1"]`, miss), wait)
	android, ios := callbacks(t, b)
	if len(android) != 1 || len(ios) != 1 {
		t.Fatalf("a miss: %d Android and %d iOS callbacks, want 1 each", len(android), len(ios))
	}
	var cb struct {
		IsFallback bool   `json:"isFallback"`
		OfferTitle string `json:"offerTitle"`
	}
	if err := json.Unmarshal([]byte(android[0]), &cb); err != nil || !cb.IsFallback || cb.OfferTitle != "Better luck next time" {
		t.Fatalf("miss payload %s", android[0])
	}
	b.Screenshot(screenshotDir, "microsite-miss")
}
