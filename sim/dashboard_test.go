package sim_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/simtest/browser"
)

// The control listener's read-only dashboard shows the active scenario,
// its switches, tracking counts and cards per user, with slots for the
// journal, faults, pending webhooks and the conformance report.
func TestDashboard_readOnlyOverview(t *testing.T) {
	e := newCardEnv(t)
	a := e.issue("dash-a", "UPI")
	e.issue("dash-a", "IMPS")
	e.issue("dash-b", "UPI")
	e.mustReveal(e.userToken("dash-a"), "dash-a", a)
	for _, kind := range []string{"impression", "impression", "click"} {
		res, err := http.Get(fmt.Sprintf("%s/track/%s?channel=DEMOBANK&rewardId=%d&from=card", e.s.RewardsURL, kind, a))
		if err != nil || res.StatusCode != http.StatusNoContent {
			t.Fatalf("track %s: %v %v", kind, err, res.StatusCode)
		}
		res.Body.Close()
	}
	for _, path := range []string{"/__sim/", "/__sim/dashboard"} {
		res, err := http.Get(e.s.ControlURL + path)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		page := string(raw)
		for _, want := range []string{
			`<b id="scenario">default</b>`, "emptySessionId: refuse", "secondReveal: failure", "androidBridge: RewardsimAndroid",
			`<b class="cards">3</b>`, `<b class="users">2</b>`, `<b class="impressions">2</b>`, `<b class="clicks">1</b>`,
			`<tr data-user="dash-a"><td>dash-a</td><td class="n unscratched">1</td><td class="n revealed">1</td><td class="n total">2</td>`,
			`<tr data-user="dash-b"><td>dash-b</td><td class="n unscratched">1</td><td class="n revealed">0</td>`,
			`data-slot="journal"`, `data-slot="faults"`, `data-slot="webhooks"`, `data-slot="report"`,
		} {
			if !strings.Contains(page, want) {
				t.Errorf("%s lacks %s", path, want)
			}
		}
		if strings.Contains(page, "https://") || strings.Contains(page, "<script") {
			t.Errorf("%s loads external assets or scripts", path)
		}
	}
	b := browser.Start(t)
	b.Open(e.s.ControlURL + "/__sim/dashboard")
	b.WaitFor(`section[data-channel="DEMOBANK"] tr[data-user="dash-b"]`, wait)
	b.Screenshot(screenshotDir, "dashboard")
}
