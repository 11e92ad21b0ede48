package sim_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/browser"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// The panel shows what is live (issue 52, items 3 and 1): the selected
// channel's panel is the page's first screen, with the rules that can
// still fire, the switches an override sets and its stories; spent
// one-shot rules are greyed and folded; the errorCode select shows only
// beside coupon-error; a story's chip says it is the story's and its ×
// says what it did; each switch is a select that sets it; the answer
// line tells time to the millisecond. Screenshots under
// fixtures/artifacts/screenshots.
func TestDashboardPanel_firstScreenShowsWhatIsLive(t *testing.T) {
	s := simtest.New(t)
	ctx := context.Background()
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/channels", map[string]any{"name": "CI-42", "like": "DEMOBANK"})
	// DEMOBANK: a one-shot rule, spent by the claim it failed.
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{"id": "once", "endpoint": "fetchCouponCode", "channel": "DEMOBANK", "times": 1,
		"action": map[string]any{"kind": "coupon-error", "errorCode": "COUPON_EXHAUSTED"}})
	if _, err := s.Client.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-L", ExtTransactionID: "TX-L1", CoinsUsed: "100"}); err == nil {
		t.Fatal("the one-shot rule did not fire")
	}
	// CI-42: a live rule, a story, a switch overridden.
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{"id": "sig", "endpoint": "GetAuthToken", "channel": "CI-42", "action": map[string]any{"kind": "signature-mismatch"}})
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/stories/stock-out/apply?channel=CI-42", nil)
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/switches", map[string]any{"name": "coupons.duplicate", "value": "reject", "channel": "CI-42"})
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/clock", map[string]any{"mode": "frozen", "time": "2026-01-15T10:00:00.123456789+05:30", "channel": "CI-42"})

	b := browser.Start(t)
	b.Resize(1280, 900)
	b.Open(s.ControlURL + "/__sim/dashboard?channel=CI-42")
	b.WaitFor(`.panel[data-channel="CI-42"]`, wait)
	var first struct {
		Channel           string
		LiveBottom        float64
		Rules, Switches   string
		HasSig, HasStory  bool
		CodeHiddenAtFirst bool
	}
	b.Eval(`var p = document.querySelector("main .panel"), live = p.querySelector(".live");
return {Channel: p.dataset.channel, LiveBottom: live.getBoundingClientRect().bottom + window.scrollY,
  Rules: live.querySelector(".live-rules").innerText, Switches: live.querySelector(".live-switches").innerText,
  HasSig: !!live.querySelector('[data-rule="sig"]'), HasStory: !!live.querySelector('.armed[data-story="stock-out"]'),
  CodeHiddenAtFirst: p.querySelector('tr[data-endpoint="fetchCouponCode"] select.code').hidden};`, &first)
	if first.Channel != "CI-42" {
		t.Errorf("the first panel of the page is %q, want the selected CI-42", first.Channel)
	}
	if first.LiveBottom > 900 {
		t.Errorf("CI-42's live rules and switches end %v px down the page: not on the first screen (900 px)", first.LiveBottom)
	}
	if !first.HasSig || !first.HasStory || !strings.Contains(first.Rules, "story stock-out:") || !strings.Contains(first.Switches, "switches.coupons.duplicate = reject") {
		t.Errorf("CI-42's first screen does not show what is live: rules %q, switches %q", first.Rules, first.Switches)
	}
	t.Logf("screenshot %s", b.Screenshot(screenshotDir, "panel-first-screen"))

	// The errorCode select shows only beside coupon-error.
	row := `.panel[data-channel="CI-42"] tr[data-endpoint="fetchCouponCode"]`
	codeHidden := func() bool {
		var h bool
		b.Eval(`return document.querySelector(arguments[0]).hidden;`, &h, row+" select.code")
		return h
	}
	b.MustFind(row + " select.kind").SetValue("coupon-error")
	if codeHidden() {
		t.Error("the errorCode select is hidden beside coupon-error")
	}
	b.MustFind(row + " select.kind").SetValue("delay")
	if !codeHidden() {
		t.Error("the errorCode select shows beside delay")
	}
	if !first.CodeHiddenAtFirst {
		t.Error("the errorCode select shows before coupon-error is chosen")
	}

	// The answer line tells time to the millisecond.
	b.MustFind(`.panel[data-channel="CI-42"] button[data-by="1m"]`).Click()
	answeredOn(t, b, "CI-42", "clock now 2026-01-15 10:01:00.123 +05:30")

	// A switch's select sets it for the channel; reset puts it back.
	b.MustFind(`.panel[data-channel="CI-42"] details.switches summary`).Click()
	b.MustFind(`.panel[data-channel="CI-42"] tr[data-switch="switches.coupons.crossOffer"] select.switch-value`).SetValue("new")
	answeredOn(t, b, "CI-42", "switch switches.coupons.crossOffer is new (default reject, scenario reject)")
	if out := string(ctlOKRaw(t, s, "/__sim/switches?channel=CI-42")); !strings.Contains(out, `"name":"switches.coupons.crossOffer","kind":"string","values":["reject","new","first"],"allowed":"reject, new, first","default":"reject","scenario":"reject","override":"new","value":"new"`) {
		t.Errorf("the select did not set crossOffer for CI-42: %s", out)
	}
	b.WaitFor(`.panel[data-channel="CI-42"] .live-switches [data-switch="switches.coupons.crossOffer"]`, wait)
	var open bool
	b.Eval(`return document.querySelector('.panel[data-channel="CI-42"] details.switches').open;`, &open)
	if !open {
		t.Error("the switch table folded itself when the page refreshed")
	}
	b.MustFind(`.panel[data-channel="CI-42"] .live-switches [data-switch="switches.coupons.duplicate"] button`).Click()
	answeredOn(t, b, "CI-42", "reset switches.coupons.duplicate to the scenario's value")
	t.Logf("screenshot %s", b.Screenshot(screenshotDir, "panel-switches"))

	// A story's chip: its × disarms that rule and says what it did.
	b.MustFind(`.panel[data-channel="CI-42"] .live .armed[data-story="stock-out"] button`).Click()
	answeredOn(t, b, "CI-42", "the last rule of story stock-out on channel CI-42: the story is no longer applied")

	// DEMOBANK: the spent rule is greyed and folded, not among the live.
	b.Open(s.ControlURL + "/__sim/dashboard?channel=DEMOBANK")
	b.WaitFor(`.panel[data-channel="DEMOBANK"]`, wait)
	var spent struct{ Live, Folded, Greyed bool }
	b.Eval(`var p = document.querySelector('.panel[data-channel="DEMOBANK"]');
return {Live: !!p.querySelector('.live-rules > [data-rule="once"]'), Folded: !!p.querySelector('.live details.spent [data-rule="once"]'),
  Greyed: getComputedStyle(p.querySelector('.live details.spent [data-rule="once"]')).opacity < 1};`, &spent)
	if spent.Live || !spent.Folded || !spent.Greyed {
		t.Errorf("the spent rule: among the live %v, folded %v, greyed %v; want folded and greyed only", spent.Live, spent.Folded, spent.Greyed)
	}
	b.MustFind(`.panel[data-channel="DEMOBANK"] details.spent summary`).Click()
	t.Logf("screenshot %s", b.Screenshot(screenshotDir, "panel-spent"))
	b.MustFind(`.panel[data-channel="DEMOBANK"] details.switches summary`).Click()
	layout(t, b, "main, section, .panel, .panel .box, header", "dashboard with the live panels at 1280 px")
	t.Logf("screenshot %s", fullPage(b, 1280, "dashboard-live-panels"))
}
