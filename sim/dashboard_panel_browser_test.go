package sim_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/internal/browser"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// answered waits until the DEMOBANK panel's answer says want.
func answered(t *testing.T, b *browser.Browser, want string) string {
	t.Helper()
	return answeredOn(t, b, "DEMOBANK", want)
}

// answeredOn waits until channel's panel's answer says want.
func answeredOn(t *testing.T, b *browser.Browser, channel, want string) string {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		got := b.MustFind("#answer-" + channel).Text()
		if strings.Contains(got, want) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("the panel's answer is %q, want %q", got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// until polls cond (a script returning a boolean) until it holds.
func until(t *testing.T, b *browser.Browser, what, cond string) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		var ok bool
		b.Eval(cond, &ok)
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited in vain for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A developer with the control token set opens the dashboard, gives the
// token once, clicks a fault on, sees the publisher's next claim fail
// with it, clicks it off, applies a story and clears it, moves the
// channel's clock, and gets a refusal shown in place; a page of another
// origin, opened in the same logged-in browser, changes nothing. The
// page is laid out without overflow at 1280 and 2000 px.
func TestDashboardPanel_clicksInChromiumWithToken(t *testing.T) {
	s := simtest.New(t, simtest.WithControl(sim.ControlOptions{Token: "s3cret"}))
	ctx := t.Context()
	b := browser.Start(t)
	b.Open(s.ControlURL + "/__sim/dashboard")
	b.MustFind("#token").SetValue("s3cret")
	b.MustFind("#enter").Click()
	b.WaitFor(`.panel[data-channel="DEMOBANK"]`, wait)
	var cookies string
	b.Eval(`return document.cookie;`, &cookies)
	if strings.Contains(cookies, "rewardsim_control") {
		t.Fatalf("the session cookie is readable by the page's script: %q", cookies)
	}

	// A fault on, every call: the next claim fails with it; off: served.
	row := `.panel[data-channel="DEMOBANK"] tr[data-endpoint="fetchCouponCode"]`
	b.MustFind(row + " select.kind").SetValue("coupon-error")
	b.MustFind(row + " select.code").SetValue("COUPON_EXHAUSTED")
	b.MustFind(row + ` button[data-times="0"]`).Click()
	answered(t, b, "armed ")
	b.WaitFor(row+" .armed button", wait)
	claim := func(tx string) error {
		_, err := s.Client.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-P", ExtTransactionID: tx, CoinsUsed: "100"})
		return err
	}
	var ce *publisher.CouponError
	if err := claim("TX-P1"); !errors.As(err, &ce) || ce.ErrorCode != "COUPON_EXHAUSTED" {
		t.Fatalf("the claim after the fault was clicked on: %v, want COUPON_EXHAUSTED", err)
	}
	b.MustFind(row + " .armed button").Click()
	until(t, b, "the fault switched off", `return document.querySelectorAll('`+row+` .armed').length === 0;`)
	if err := claim("TX-P2"); err != nil {
		t.Fatalf("the claim after the fault was clicked off: %v", err)
	}

	// A story applied shows on the next call and in the header; cleared, gone.
	b.MustFind(`.panel[data-channel="DEMOBANK"] button[data-story="uat-down"]`).Click()
	answered(t, b, "applied story uat-down to DEMOBANK")
	b.WaitFor(`button.applied[data-story="uat-down"]`, wait)
	b.WaitFor(`#chans .head-stories`, wait)
	var he *publisher.HTTPError
	if _, err := s.Client.ReferenceToken(ctx); !errors.As(err, &he) || he.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a call under uat-down: %v, want HTTP 503", err)
	}
	b.MustFind(`.panel[data-channel="DEMOBANK"] button[data-act="story-clear"]`).Click()
	answered(t, b, "cleared uat-down")
	if _, err := s.Client.ReferenceToken(ctx); err != nil {
		t.Fatalf("a call after the story was cleared: %v", err)
	}

	// The channel's clock: +31 min, set, a refusal in place, back to real.
	b.MustFind(`.panel[data-channel="DEMOBANK"] button[data-by="31m"]`).Click()
	answered(t, b, "clock now 2026-01-15 10:31:00.000 +05:30")
	b.MustFind(`.panel[data-channel="DEMOBANK"] input.clock-time`).SetValue("2026-02-01T09:00:00+05:30")
	b.MustFind(`.panel[data-channel="DEMOBANK"] button[data-act="clock-set"]`).Click()
	answered(t, b, "clock now 2026-02-01 09:00:00.000 +05:30")
	if _, clk := ctl(t, s, "GET", "/__sim/clock?channel=DEMOBANK", nil, "s3cret"); !strings.Contains(string(clk), `"now":"2026-02-01T09:00:00+05:30"`) || !strings.Contains(string(clk), `"own":true`) {
		t.Fatalf("DEMOBANK's clock after the clicks: %s", clk)
	}
	b.MustFind(`.panel[data-channel="DEMOBANK"] input.clock-time`).SetValue("yesterday")
	b.MustFind(`.panel[data-channel="DEMOBANK"] button[data-act="clock-set"]`).Click()
	answered(t, b, "refused (HTTP 400)")
	b.MustFind(`.panel[data-channel="DEMOBANK"] button[data-act="clock-real"]`).Click()
	answered(t, b, "clock now 2026-01-15 10:00:00.000 +05:30")

	// A push the channel cannot receive is refused in place; reset answers.
	b.MustFind(`.panel[data-channel="DEMOBANK"] button[data-act="push"]`).Click()
	answered(t, b, "has no registered webhook URL")
	b.MustFind(`.panel[data-channel="DEMOBANK"] button[data-act="reset"]`).Click()
	answered(t, b, "state of DEMOBANK wiped")
	b.MustFind(`.panel[data-channel="DEMOBANK"] button[data-act="scenario"]`).Click()
	answered(t, b, "scenario default governs DEMOBANK")

	// A storm on a second channel: its five pushes are one row of the
	// webhook panel (issue 43 item 10), clicked from that channel's panel.
	hooks := newReceiver(t, answerOK)
	if st, out := ctl(t, s, "POST", "/__sim/channels", map[string]any{"name": "CI-WH", "like": "DEMOBANK", "webhookUrl": hooks.URL}, "s3cret"); st != http.StatusCreated {
		t.Fatalf("register CI-WH: HTTP %d %s", st, out)
	}
	b.Open(s.ControlURL + "/__sim/dashboard")
	b.MustFind(`.panel[data-channel="CI-WH"] button[data-story="webhook-storm"]`).Click()
	b.WaitFor(`#slot-webhooks tr[data-repeats="5"]`, wait)
	if n := b.Count(`#slot-webhooks tr[data-push]`); n != 1 {
		t.Errorf("the storm's pushes fill %d rows of the webhook panel, want 1", n)
	}

	for _, width := range []int{1280, 2000} {
		b.Resize(width, 1000)
		layout(t, b, "main, section, .panel, .panel .box, header", fmt.Sprintf("dashboard with its panel at %d px", width))
		t.Logf("screenshot %s", fullPage(b, width, fmt.Sprintf("dashboard-panel-%d", width)))
	}

	// Another origin's page in the same browser, the session cookie set.
	before := controlFingerprintToken(t, s)
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, attackerPage, s.ControlURL, s.ControlURL)
	}))
	defer attacker.Close()
	b.Open(strings.Replace(attacker.URL, "127.0.0.1", "localhost", 1))
	until(t, b, "the attacker page's attempts", `return document.title === "done";`)
	if after := controlFingerprintToken(t, s); after != before {
		t.Fatalf("a page of another origin changed the control plane:\nbefore %s\nafter  %s", before, after)
	}
}

// controlFingerprintToken is controlFingerprint on a simulator with the
// control token s3cret.
func controlFingerprintToken(t *testing.T, s *simtest.Server) string {
	t.Helper()
	var b strings.Builder
	for _, p := range []string{"/__sim/faults", "/__sim/clock", "/__sim/clock?channel=DEMOBANK", "/__sim/scenarios", "/__sim/stories"} {
		_, out := ctl(t, s, http.MethodGet, p, nil, "s3cret")
		b.Write(out)
	}
	return b.String()
}
