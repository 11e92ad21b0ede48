package sim_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/browser"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: SIM-3, SIM-6
// Issue 24 items 5 and 8: after a flow with every contract outcome (a
// success, a refusal answered HTTP 200 (INVALID_OFFER), a refusal with a
// long reason, an injected fault, a webhook push nobody answers), the
// dashboard, the diagram and the HTML report, in headless Chromium at
// 1280 and 2000 px: every answer of the diagram is coloured by its
// outcome and the legend names all four; no panel overflows
// (scrollWidth <= clientWidth) and no SVG text leaves its picture's box.
// The screenshots are kept under fixtures/artifacts/screenshots.
func TestPictures_outcomeColoursAndLayout(t *testing.T) {
	s := simtest.New(t)
	fullFlow(t, s.Client)
	// A refusal under HTTP 200: the coupon host's status is in the body.
	if _, err := s.Client.FetchCouponCode(bg, publisher.CouponRequest{OfferID: "NO-SUCH-OFFER", VirtualID: "VU-1", ExtTransactionID: "TX-NONE", CoinsUsed: "1"}); err == nil {
		t.Fatal("an unknown offer was claimed")
	}
	// A refusal with a long reason: a user token where the reference token is due.
	_, user := tokens(t, s.Client)
	amount := 10.0
	if res, _, _ := s.Client.GetReward(bg, user, publisher.GetRewardRequest{ChannelName: "DEMOBANK", VirtualID: "VU-1",
		TriggerEventType: "UPI", ExtTransactionID: "TXN-WRONG", Amount: &amount, DateAndTime: "15012026100000"}); res == nil || res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GetReward with a user token: %+v", res)
	}
	// An injected fault.
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{
		"endpoint": "getUserCoupons", "virtualId": "VU-1", "times": 1, "action": map[string]any{"kind": "internal-error"}})
	_, _ = s.Client.UserCoupons(bg, "VU-1", "OFFER-DEMO")
	// A transport failure: a webhook receiver that is not there.
	registerChannel(t, s, "NOHOOK", 0, "http://127.0.0.1:1/hook")
	schedule(t, s, map[string]any{"channel": "NOHOOK", "offerId": "O1", "reason": "OUT_OF_STOCK", "retry": map[string]any{"kind": "none"}})
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/webhooks/run", nil)

	b := browser.Start(t)
	for _, width := range []int{1280, 2000} {
		b.Resize(width, 1000)

		b.Open(s.ControlURL + "/__sim/diagram.svg")
		b.WaitFor(`svg.sequence g.call`, wait)
		var outcomes []string
		b.Eval(`return Array.from(new Set(Array.from(document.querySelectorAll("g.call")).map(function (g) { return g.getAttribute("data-outcome"); }))).sort();`, &outcomes)
		if fmt.Sprint(outcomes) != "[fault refusal success transport]" {
			t.Errorf("outcomes drawn %v, want all four", outcomes)
		}
		// Each answer in its outcome's colour, whatever its HTTP status.
		var colours map[string]string
		b.Eval(`var m = {}; document.querySelectorAll("g.call").forEach(function (g) {
			var o = g.getAttribute("data-outcome"), c = g.querySelector("text.answer").getAttribute("fill");
			if (m[o] && m[o] !== c) { m[o] = "mixed"; } else { m[o] = c; } }); return m;`, &colours)
		want := map[string]string{"success": "#047857", "refusal": "#B45309", "fault": "#7C3AED", "transport": "#B91C1C"}
		for o, c := range want {
			if colours[o] != c {
				t.Errorf("%s answers are %q, want %s", o, colours[o], c)
			}
		}
		if n := b.Count(`g.legend g[data-outcome]`); n != 4 {
			t.Errorf("legend of %d outcomes, want 4", n)
		}
		if b.Count(`g.call[data-label="fetchCouponCode"][data-status="200"][data-outcome="refusal"]`) == 0 {
			t.Error("the refused claim answered HTTP 200 is not drawn as a refusal")
		}
		layout(t, b, "svg", fmt.Sprintf("diagram at %d px", width))
		t.Logf("screenshot %s", fullPage(b, width, fmt.Sprintf("diagram-outcomes-%d", width)))

		b.Open(s.ControlURL + "/__sim/dashboard?channel=DEMOBANK")
		b.WaitFor(`#flow svg.sequence g.call`, wait)
		if b.Count(`#slot-journal tr[data-outcome="refusal"] td.o-refusal`) == 0 || b.Count(`#slot-journal .legend .o-transport`) != 1 {
			t.Error("the dashboard's journal is not coloured by outcome, or has no legend")
		}
		layout(t, b, "main > section", fmt.Sprintf("dashboard at %d px", width))
		t.Logf("screenshot %s", b.Screenshot(screenshotDir, fmt.Sprintf("dashboard-outcomes-%d", width)))

		b.Open(s.ControlURL + "/__sim/dashboard")
		b.WaitFor(`#slot-webhooks tr[data-push]`, wait)
		layout(t, b, "main > section", fmt.Sprintf("dashboard (every channel) at %d px", width))
		t.Logf("screenshot %s", fullPage(b, width, fmt.Sprintf("dashboard-all-%d", width)))

		b.Open(s.ControlURL + "/__sim/report.html")
		b.WaitFor(`article.finding`, wait)
		layout(t, b, "body, section, article, main, .diagram", fmt.Sprintf("report at %d px", width))
		t.Logf("screenshot %s", fullPage(b, width, fmt.Sprintf("report-%d", width)))
	}
}

// fullPage screenshots the whole page (up to 5000 px tall), then puts
// the window back.
func fullPage(b *browser.Browser, width int, name string) string {
	var h float64
	b.Eval(`return document.documentElement.scrollHeight;`, &h)
	b.Resize(width, min(int(h)+120, 5000))
	defer b.Resize(width, 1000)
	return b.Screenshot(screenshotDir, name)
}

// layout fails the test on every panel that overflows and every SVG text
// outside its picture.
func layout(t *testing.T, b *browser.Browser, panels, where string) {
	t.Helper()
	var problems []string
	b.Eval(browser.LayoutProblems, &problems, panels)
	if len(problems) > 0 {
		t.Errorf("%s:\n%s", where, strings.Join(problems, "\n"))
	}
}
