package main

import (
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// Issue 55 item 4: the dashboard's CSRF token is the session's own. The
// login page, served to anyone without the control token, carries none;
// two logins get two sessions with two tokens, and a token of one
// session is refused with another session's cookie.
func TestDashboard_csrfTokenIsPerSessionNeverBeforeLogin(t *testing.T) {
	cmd, urls := startServe(t, buildBinary(t), t.TempDir(), "--control-token", "s3cret")
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	control := urls["control"]
	// call sends one control request with a cookie and a CSRF token,
	// either empty, and reads its answer.
	call := func(method, path, body, cookie, csrf string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, control+path, strings.NewReader(body))
		req.Header = http.Header{"Content-Type": {"application/json"}, "Cookie": {cookie}, "X-Rewardsim-Csrf": {csrf}}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res, readAll(t, res)
	}
	csrfMeta := regexp.MustCompile(`<meta name="rewardsim-csrf" content="([0-9a-f]{64})">`)
	login := func() (cookie, csrf string) {
		t.Helper()
		res, _ := call("POST", "/__sim/login", `{"token":"s3cret"}`, "", "")
		if res.StatusCode != http.StatusOK || len(res.Cookies()) != 1 {
			t.Fatalf("login: HTTP %d, cookies %v", res.StatusCode, res.Cookies())
		}
		cookie = res.Cookies()[0].Name + "=" + res.Cookies()[0].Value
		res, page := call("GET", "/__sim/dashboard", "", cookie, "")
		m := csrfMeta.FindStringSubmatch(page)
		if res.StatusCode != http.StatusOK || m == nil {
			t.Fatalf("dashboard with the cookie: HTTP %d, CSRF meta %v", res.StatusCode, m)
		}
		return cookie, m[1]
	}

	res, prompt := call("GET", "/__sim/dashboard", "", "", "")
	if res.StatusCode != http.StatusUnauthorized || !strings.Contains(prompt, `id="token" type="password"`) {
		t.Fatalf("dashboard without a session: HTTP %d, want the token prompt", res.StatusCode)
	}
	cookieA, csrfA := login()
	cookieB, csrfB := login()
	if cookieA == cookieB || csrfA == csrfB {
		t.Errorf("two sessions share their cookie (%v) or CSRF token (%v)", cookieA == cookieB, csrfA == csrfB)
	}
	if regexp.MustCompile(`[0-9a-f]{64}`).MatchString(prompt) || strings.Contains(prompt, csrfA) {
		t.Errorf("the login page carries a token:\n%s", prompt)
	}
	fault := `{"endpoint":"fetchCouponCode","channel":"DEMOBANK","times":1,"action":{"kind":"coupon-error","errorCode":"COUPON_EXHAUSTED"}}`
	for _, c := range []struct {
		name         string
		cookie, csrf string
		want         int
	}{
		{"A's token with B's cookie", cookieB, csrfA, http.StatusForbidden},
		{"B's token with A's cookie", cookieA, csrfB, http.StatusForbidden},
		{"A's own", cookieA, csrfA, http.StatusCreated},
		{"B's own", cookieB, csrfB, http.StatusCreated},
	} {
		if res, body := call("POST", "/__sim/faults", fault, c.cookie, c.csrf); res.StatusCode != c.want {
			t.Errorf("%s: HTTP %d %s, want %d", c.name, res.StatusCode, body, c.want)
		}
	}
}
