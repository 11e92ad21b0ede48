package sim_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// send makes one control request with the headers given (pairs).
func send(t *testing.T, method, url, body string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res, string(raw)
}

var csrfMeta = regexp.MustCompile(`<meta name="rewardsim-csrf" content="([0-9a-f]{64})">`)

// With --control-token the dashboard asks for the token once and keeps a
// SameSite=Strict, HttpOnly session cookie (never the token); a write on
// the cookie's authority needs the page's CSRF token.
// The page shows each channel's control panel and, in its header, each
// channel's governing scenario, file faults and clock.
func TestDashboard_tokenSessionCSRFAndPanel(t *testing.T) {
	s := simtest.New(t, simtest.WithControl(sim.ControlOptions{Token: "s3cret"}))
	dash := s.ControlURL + "/__sim/dashboard"
	res, page := send(t, "GET", dash, "")
	if res.StatusCode != http.StatusUnauthorized || !strings.Contains(page, `id="token" type="password"`) {
		t.Fatalf("dashboard without a session: HTTP %d, want the token prompt:\n%s", res.StatusCode, page)
	}
	if res, body := send(t, "POST", s.ControlURL+"/__sim/login", `{"token":"guess"}`); res.StatusCode != http.StatusUnauthorized || len(res.Cookies()) != 0 {
		t.Fatalf("login with a wrong token: HTTP %d %s %v", res.StatusCode, body, res.Cookies())
	}
	res, _ = send(t, "POST", s.ControlURL+"/__sim/login", `{"token":"s3cret"}`)
	if res.StatusCode != http.StatusOK || len(res.Cookies()) != 1 {
		t.Fatalf("login: HTTP %d, cookies %v", res.StatusCode, res.Cookies())
	}
	ck := res.Cookies()[0]
	set := res.Header.Get("Set-Cookie")
	if !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || strings.Contains(set, "s3cret") {
		t.Fatalf("session cookie %q: want HttpOnly, SameSite=Strict and not the token", set)
	}
	cookie := ck.Name + "=" + ck.Value
	res, page = send(t, "GET", dash, "", "Cookie", cookie)
	m := csrfMeta.FindStringSubmatch(page)
	if res.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("dashboard with the cookie: HTTP %d, CSRF meta %v", res.StatusCode, m)
	}
	for _, want := range []string{
		`<div class="panel" data-channel="DEMOBANK"`, `<tr data-endpoint="fetchCouponCode">`, `<option>commit-then-delay</option>`,
		`<option selected>COUPON_EXHAUSTED</option>`, `data-story="stock-out" title="Every coupon claim answers COUPON_EXHAUSTED`,
		`data-act="advance" data-by="31m"`, `<select class="scenario" aria-label="scenario of DEMOBANK"><option selected>default</option>`,
		`<select class="offer" aria-label="offer"><option>OFFER-DEMO</option>`, `data-act="reset"`,
		// Issue 43 item 6: the header names each channel's scenario, file faults and clock.
		`<span data-head="DEMOBANK"><b>DEMOBANK</b>: scenario <b class="head-scenario">default</b> &middot; <span class="head-faults">3 file faults</span> &middot; clock <span class="head-clock">2026-01-15 10:00:00 &#43;05:30 (frozen)</span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the dashboard lacks %s", want)
		}
	}
	fault := `{"endpoint":"fetchCouponCode","channel":"DEMOBANK","times":1,"action":{"kind":"coupon-error","errorCode":"COUPON_EXHAUSTED"}}`
	for _, c := range []struct {
		headers []string
		want    int
	}{
		{[]string{"Cookie", cookie}, http.StatusForbidden},                                              // the cookie alone
		{[]string{"Cookie", cookie, "X-Rewardsim-CSRF", strings.Repeat("0", 64)}, http.StatusForbidden}, // a guessed CSRF token
		{[]string{"Cookie", "rewardsim_control=forged", "X-Rewardsim-CSRF", m[1]}, http.StatusUnauthorized},
		{[]string{"Cookie", cookie, "X-Rewardsim-CSRF", m[1], "Sec-Fetch-Site", "same-origin", "Origin", s.ControlURL}, http.StatusCreated},
		{[]string{"X-Rewardsim-Control-Token", "s3cret"}, http.StatusCreated}, // a script with the token, as before
	} {
		if res, body := send(t, "POST", s.ControlURL+"/__sim/faults", fault, c.headers...); res.StatusCode != c.want {
			t.Errorf("POST /__sim/faults with %q: HTTP %d %s, want %d", c.headers, res.StatusCode, body, c.want)
		}
	}
}
