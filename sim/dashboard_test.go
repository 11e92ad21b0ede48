package sim_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/browser"
)

// The control listener's read-only dashboard shows the active scenario,
// its switches, tracking counts and cards per user, the latest journal
// exchanges, the armed fault rules, pending webhooks and the conformance
// report's findings.
//
// clause: SIM-3, SIM-6
func TestDashboard_readOnlyOverview(t *testing.T) {
	e := newCardEnv(t)
	ctlOK(t, e.s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{
		"id": "dash-fault", "endpoint": "GetReward", "virtualId": "nobody", "action": map[string]any{"kind": "internal-error"}})
	registerChannel(t, e.s, "DASHWH", 0, "http://127.0.0.1:9/never")
	push := schedule(t, e.s, map[string]any{"channel": "DASHWH", "offerId": "O1", "reason": "OUT_OF_STOCK", "at": "2027-01-01T00:00:00+05:30"})[0]
	// A user token where a reference token is due: an AUTH-1 finding.
	if res, _, _ := e.s.Client.GetReward(e.ctx, e.userToken("dash-x"), e.req("dash-x", "UPI")); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong token type: HTTP %d", res.StatusCode)
	}
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
			`<tr data-user="dash-a"><td><a href="/__sim/dashboard?channel=DEMOBANK&amp;virtualId=dash-a">dash-a</a></td><td class="n unscratched">1</td><td class="n revealed">1</td><td class="n total">2</td>`,
			`<tr data-user="dash-b"><td><a href="/__sim/dashboard?channel=DEMOBANK&amp;virtualId=dash-b">dash-b</a></td><td class="n unscratched">1</td><td class="n revealed">0</td>`,
			`data-slot="journal"`, `data-slot="faults"`, `data-slot="webhooks"`, `data-slot="report"`,
			`<tr data-fault="dash-fault">`, `<tr data-push="` + push.ID + `" data-state="pending"`, `<tr data-finding="AUTH-1">`,
			`data-endpoint="GetReward" data-status="401" data-outcome="refusal"`, `virtualId=dash-x">dash-x</a></td><td class="w o-refusal" title="wrong token type`,
			`">401 refusal</td>`, "Coloured by contract outcome",
			// One timezone on the page, the scenario's: a push's due time too.
			`00:00:00 &#43;05:30</td></tr>`,
			// The deadline in force, not the scenario's 0 ("use the default").
			"deadline: 5s", `<b class="channel-scenario">default</b>`,
		} {
			if !strings.Contains(page, want) {
				t.Errorf("%s lacks %s", path, want)
			}
		}
		// A switch nobody set is not shown as an empty string.
		if strings.Contains(page, `replay: ""`) {
			t.Errorf("%s shows the former switch name replay", path)
		}
		// The SVG namespace is a name, not a fetch.
		page = strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, "")
		if strings.Contains(page, "https://") || strings.Contains(page, "http://") || strings.Contains(page, "<script src") ||
			strings.Contains(page, "<link") || strings.Contains(page, "@import") {
			t.Errorf("%s loads external assets or scripts", path)
		}
	}
	b := browser.Start(t)
	b.Open(e.s.ControlURL + "/__sim/dashboard")
	b.WaitFor(`section[data-channel="DEMOBANK"] tr[data-user="dash-b"]`, wait)
	b.Screenshot(screenshotDir, "dashboard")
}
