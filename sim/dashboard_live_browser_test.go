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

// clause: SIM-3, SIM-6, WH-2
// The dashboard, opened once in a real (headless) browser, updates itself
// from the simulator's event stream: a GetReward, a fault firing and a
// webhook retry each appear without a reload (a value planted in the
// page's window survives). Screenshots are kept under
// fixtures/artifacts/screenshots (gitignored).
func TestDashboard_updatesLiveWithoutReload(t *testing.T) {
	e := newCardEnv(t)
	b := browser.Start(t)
	b.Open(e.s.ControlURL + "/__sim/dashboard")
	b.WaitFor(`#live[data-state="open"]`, wait)
	b.Eval(`window.plantedBeforeUpdates = 42; return null;`, nil)

	e.issue("live-a", "UPI")
	b.WaitFor(`#slot-journal tr[data-endpoint="GetReward"][data-status="200"]`, wait)

	ctlOK(t, e.s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{
		"id": "live-fault", "endpoint": "GetReward", "virtualId": "live-f", "action": map[string]any{"kind": "internal-error"}})
	if res, _, _ := e.s.Client.GetReward(e.ctx, e.ref, e.req("live-f", "UPI")); res == nil || res.StatusCode != http.StatusInternalServerError {
		t.Fatalf("the fault did not fire: %+v", res)
	}
	b.WaitFor(`#slot-journal tr[data-endpoint="GetReward"][data-fault="internal-error"]`, wait)
	if got := b.WaitFor(`#slot-faults tr[data-fault="live-fault"]`, wait).Text(); !strings.Contains(got, "1 / 1") {
		t.Errorf("fault rule row = %q, want fired 1 / seen 1", got)
	}

	rc := newReceiver(t, answerLater)
	registerChannel(t, e.s, "LIVEWH", 0, rc.URL)
	id := schedule(t, e.s, map[string]any{"channel": "LIVEWH", "offerId": "O1", "reason": "OUT_OF_STOCK",
		"retry": map[string]any{"kind": "fixed", "interval": "1m", "maxAttempts": 3}})[0].ID
	b.WaitFor(fmt.Sprintf(`#slot-webhooks tr[data-push=%q][data-attempts="1"]`, id), wait)
	advance(t, e.s, "1m")
	b.WaitFor(fmt.Sprintf(`#slot-webhooks tr[data-push=%q][data-attempts="2"][data-state="delivered"]`, id), wait)
	b.WaitFor(`#slot-journal tr[data-kind="webhook"][data-status="200"]`, wait)

	var planted float64
	b.Eval(`return window.plantedBeforeUpdates || 0;`, &planted)
	if planted != 42 {
		t.Fatal("the page was reloaded: the value planted before the updates is gone")
	}
	var updates string
	b.Eval(`return document.body.getAttribute("data-updates") || "";`, &updates)
	if updates == "" || updates == "0" {
		t.Fatalf("data-updates = %q, want the live updates counted", updates)
	}
	t.Logf("screenshot %s", b.Screenshot(screenshotDir, "dashboard-live"))
}

// clause: SIM-4, SIM-6
// The sequence diagram of a recorded full publisher flow, drawn by the
// simulator and opened in a browser, shows every journaled call in
// journal order with its status; the flow's operations appear in the
// order the publisher made them. The dashboard shows the same picture for
// the chosen user, and the HTML report renders.
func TestDiagram_fullFlowInOrder(t *testing.T) {
	s := simtest.New(t)
	fullFlow(t, s.Client)
	// Asset requests are hidden in the picture, as in the dashboard.
	st, raw := ctl(t, s, "GET", "/__sim/journal?limit=1000", nil)
	if st != http.StatusOK {
		t.Fatalf("journal: HTTP %d", st)
	}
	var page struct {
		Entries []struct {
			Seq            uint64
			Kind, Endpoint string
			Method, Path   string
			Status         int
		}
	}
	decodeInto(t, raw, &page)
	var want []string
	for _, en := range page.Entries {
		if en.Endpoint == "" && strings.HasPrefix(en.Path, "/assets/") {
			continue
		}
		label := en.Endpoint
		if label == "" {
			label = en.Method + " " + en.Path
		}
		want = append(want, fmt.Sprintf("%d %s %d", en.Seq, label, en.Status))
	}

	b := browser.Start(t)
	b.Open(s.ControlURL + "/__sim/diagram.svg")
	b.WaitFor(`svg.sequence g.call`, wait)
	var got []string
	b.Eval(`return Array.from(document.querySelectorAll("g.call")).map(function (g) {
		return g.getAttribute("data-seq") + " " + g.getAttribute("data-label") + " " + g.getAttribute("data-status"); });`, &got)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("diagram calls\n got %q\nwant %q", got, want)
	}
	if n := b.Count(`g.lane`); n != 5 {
		t.Errorf("%d lanes, want publisher, rewards, bank, hotdeals, webhook receiver", n)
	}
	flow := []string{"getSecuredReferenceToken", "GetAuthToken", "GenerateSessionInfoV2", "GetReward",
		"GetAllScratchCardsByUserId", "FetchRewardInfo", "getCatalogue", "fetchCouponCode", "getUserCoupons"}
	next := 0
	for _, call := range got {
		if next < len(flow) && strings.Contains(call, " "+flow[next]+" 200") {
			next++
		}
	}
	if next != len(flow) {
		t.Errorf("the diagram lacks %s (with 200) after the calls before it: %q", flow[next], got)
	}
	t.Logf("screenshot %s", b.Screenshot(screenshotDir, "diagram-full-flow"))

	b.Open(s.ControlURL + "/__sim/dashboard?channel=DEMOBANK&virtualId=VU-1")
	b.WaitFor(`#flow svg.sequence g.call[data-label="GetReward"][data-status="200"]`, wait)
	// The channel's pictures: the campaign's funnel (one card issued,
	// two impressions tracked, revealed) and the offer's stock, one claim down.
	for _, sel := range []string{
		`section[data-channel="DEMOBANK"] svg.funnel g.stage[data-stage="cards issued"][data-count="1"]`,
		`section[data-channel="DEMOBANK"] svg.funnel g.stage[data-stage="impressions"][data-count="2"]`,
		`section[data-channel="DEMOBANK"] svg.funnel g.stage[data-stage="revealed"][data-count="1"]`,
		`section[data-channel="DEMOBANK"] svg.stock[data-left="999999"]`,
	} {
		b.WaitFor(sel, wait)
	}
	t.Logf("screenshot %s", b.Screenshot(screenshotDir, "dashboard-flow"))

	// A user token where GetReward wants the reference token: the report
	// groups the AUTH-1 finding under its severity, its exchange beside it.
	_, user := tokens(t, s.Client)
	amount := 10.0
	if res, _, _ := s.Client.GetReward(bg, user, publisher.GetRewardRequest{ChannelName: "DEMOBANK", VirtualID: "VU-1",
		TriggerEventType: "UPI", ExtTransactionID: "TXN-WRONG-TOKEN", Amount: &amount, DateAndTime: "15012026100000"}); res == nil || res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GetReward with a user token: %+v", res)
	}
	b.Open(s.ControlURL + "/__sim/report.html")
	b.WaitFor(`h2.sev.error + article.finding.error[data-clause="AUTH-1"] .example pre`, wait)
	b.WaitFor(`.diagram svg.sequence g.call[data-label="GetReward"][data-status="401"]`, wait)
	t.Logf("screenshot %s", b.Screenshot(screenshotDir, "report"))
}
