package sim_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/internal/browser"
	"github.com/rewardsim/rewardsim/sim/internal/secrets"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// controlFingerprint is what a successful attack would change: the fault
// rules, the clock and the scenarios in force.
func controlFingerprint(t *testing.T, s *simtest.Server) string {
	t.Helper()
	var b strings.Builder
	for _, p := range []string{"/__sim/faults", "/__sim/clock", "/__sim/clock?channel=DEMOBANK", "/__sim/scenarios", "/__sim/stories"} {
		_, out := ctl(t, s, http.MethodGet, p, nil)
		b.Write(out)
	}
	return b.String()
}

// Writes a web page can send without a preflight, or from another origin,
// or through a DNS-rebound name, are refused and change nothing; the same
// writes as a tool sends them pass.
func TestControlGuard_refusesCrossOriginAndSimpleWrites(t *testing.T) {
	s := simtest.New(t, simtest.WithControl(sim.ControlOptions{AllowedHosts: []string{"sim.ci.example"}}))
	fault := `{"endpoint":"GetAuthToken","action":{"kind":"internal-error"}}`
	host := strings.TrimPrefix(s.ControlURL, "http://")
	cases := []struct {
		name, path, ctype, body string
		header                  map[string]string
		want                    int
	}{
		{"text/plain body", "/__sim/faults", "text/plain", fault, nil, 415},
		{"form body", "/__sim/faults", "application/x-www-form-urlencoded", "a=" + fault, nil, 415},
		{"multipart body", "/__sim/faults", "multipart/form-data; boundary=x", "--x--", nil, 415},
		{"body with no type", "/__sim/faults", "", fault, nil, 415},
		{"empty form post to reset", "/__sim/state/reset", "application/x-www-form-urlencoded", "", nil, 415},
		{"YAML scenario as text/plain", "/__sim/scenarios?activate=true", "text/plain", "version: 1\n", nil, 415},
		{"cross-site fetch", "/__sim/faults", "application/json", fault, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"same-site other port", "/__sim/clock", "application/json", `{"mode":"frozen"}`, map[string]string{"Sec-Fetch-Site": "same-site"}, 403},
		{"foreign Origin", "/__sim/faults", "application/json", fault, map[string]string{"Origin": "http://127.0.0.1:1"}, 403},
		{"null Origin", "/__sim/state/reset", "", "", map[string]string{"Origin": "null"}, 403},
		{"DNS-rebound Host", "/__sim/faults", "application/json", fault, map[string]string{"Host": "attacker.example:" + port(host)}, 403},
		{"DNS-rebound read", "/__sim/journal", "", "", map[string]string{"Host": "attacker.example"}, 403},
		{"DNS-rebound name under a service label", "/__sim/journal", "", "", map[string]string{"Host": "rewardsim.attacker.example:8090"}, 403},
		// A service name is accepted as Host, and the write checks still hold.
		{"service name, cross-site", "/__sim/faults", "application/json", fault, map[string]string{"Host": "rewardsim:8090", "Sec-Fetch-Site": "cross-site"}, 403},
		{"service name, foreign Origin", "/__sim/faults", "application/json", fault, map[string]string{"Host": "rewardsim:8090", "Origin": "http://attacker.example"}, 403},
		{"service name, text/plain", "/__sim/faults", "text/plain", fault, map[string]string{"Host": "rewardsim:8090"}, 415},
	}
	before := controlFingerprint(t, s)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			method := http.MethodPost
			if strings.HasPrefix(c.path, "/__sim/journal") {
				method = http.MethodGet
			}
			st, out := rawControl(t, s, method, c.path, c.ctype, c.body, c.header)
			if st != c.want {
				t.Fatalf("HTTP %d %s, want %d", st, out, c.want)
			}
			if err := controlSchemas().ValidateJSON("control.error", out); err != nil {
				t.Fatalf("answer outside control.error.json: %v: %s", err, out)
			}
		})
	}
	if after := controlFingerprint(t, s); after != before {
		t.Fatalf("refused writes changed the control plane:\nbefore %s\nafter  %s", before, after)
	}

	// What tools send still works: JSON with a same-origin Origin, a
	// configured host name, YAML, and a bodyless POST with no type.
	for _, c := range []struct {
		name, path, ctype, body string
		header                  map[string]string
		want                    int
	}{
		{"JSON, same origin", "/__sim/faults", "application/json; charset=utf-8", fault, map[string]string{"Origin": s.ControlURL, "Sec-Fetch-Site": "same-origin"}, 201},
		{"configured host", "/__sim/clock/advance", "application/json", `{"by":"1m"}`, map[string]string{"Host": "sim.ci.example"}, 200},
		{"localhost", "/__sim/clock/advance", "application/json", `{"by":"1m"}`, map[string]string{"Host": "localhost:" + port(host)}, 200},
		{"service name (compose, GitLab alias)", "/__sim/clock/advance", "application/json", `{"by":"1m"}`, map[string]string{"Host": "rewardsim:8090"}, 200},
		{"service name, same origin", "/__sim/clock/advance", "application/json", `{"by":"1m"}`, map[string]string{"Host": "rewardsim-1:8090", "Origin": "http://rewardsim-1:8090"}, 200},
		{"bodyless POST", "/__sim/webhooks/run", "", "", nil, 200},
	} {
		if st, out := rawControl(t, s, http.MethodPost, c.path, c.ctype, c.body, c.header); st != c.want {
			t.Errorf("%s: HTTP %d %s, want %d", c.name, st, out, c.want)
		}
	}
}

func port(hostport string) string {
	_, p, _ := net.SplitHostPort(hostport)
	return p
}

func rawControl(t *testing.T, s *simtest.Server, method, path, ctype, body string, header map[string]string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.ControlURL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body == "" {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, out
}

// attackerPage tries every write a page can send to the control API: a
// form post, no-cors fetches with text/plain and form bodies, a bodyless
// reset, a JSON fetch (which needs a preflight) and a beacon. It sets
// document.title to "done" when every attempt has settled.
const attackerPage = `<!doctype html><html><body>
<iframe name="sink"></iframe>
<form id="f" method="POST" action="%[1]s/__sim/faults" target="sink" enctype="text/plain">
<input name='{"endpoint":"GetAuthToken","action":{"kind":"internal-error"},"x":"' value='"}'>
</form>
<script>
var C = %[2]q, fault = '{"endpoint":"GetAuthToken","action":{"kind":"internal-error"}}';
var tries = [
  fetch(C + '/__sim/faults', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: fault}),
  fetch(C + '/__sim/faults', {method: 'POST', mode: 'no-cors', body: new URLSearchParams({x: fault})}),
  fetch(C + '/__sim/state/reset', {method: 'POST', mode: 'no-cors'}),
  fetch(C + '/__sim/clock', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: '{"mode":"frozen","time":"2030-01-01T00:00:00Z"}'}),
  fetch(C + '/__sim/scenarios?activate=true', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: 'version: 1\nname: evil\n'}),
  fetch(C + '/__sim/faults', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: fault}),
  // What the dashboard's control panel sends, sent from another origin.
  fetch(C + '/__sim/stories/uat-down/apply?channel=DEMOBANK', {method: 'POST', mode: 'no-cors', credentials: 'include'}),
  fetch(C + '/__sim/clock/advance', {method: 'POST', mode: 'no-cors', credentials: 'include', headers: {'Content-Type': 'text/plain'}, body: '{"by":"31m","channel":"DEMOBANK"}'}),
  fetch(C + '/__sim/faults', {method: 'POST', credentials: 'include', headers: {'Content-Type': 'application/json', 'X-Rewardsim-CSRF': 'guess'}, body: fault}),
  fetch(C + '/__sim/login', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: '{"token":"guess"}'}),
];
navigator.sendBeacon(C + '/__sim/faults', fault);
document.getElementById('f').submit();
Promise.allSettled(tries).then(function () { setTimeout(function () { document.title = 'done'; }, 500); });
</script></body></html>`

// A page on another loopback origin, opened in a real browser, tries to
// add a fault rule, reset state, move the clock and load a scenario; the
// control plane and the user's cards are unchanged afterwards, and the
// dashboard still works in the same browser.
func TestControlGuard_attackerPageInChromium(t *testing.T) {
	e := newCardEnv(t)
	const vid = "csrf-victim"
	id := e.issue(vid, "UPI")
	before := controlFingerprint(t, e.s)

	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, attackerPage, e.s.ControlURL, e.s.ControlURL)
	}))
	defer attacker.Close()
	// The attacker is on another port of localhost: another origin, but
	// the same site, which is exactly the developer-laptop case.
	attackURL := strings.Replace(attacker.URL, "127.0.0.1", "localhost", 1)

	b := browser.Start(t)
	b.Open(attackURL)
	deadline := time.Now().Add(wait)
	for {
		var title string
		b.Eval(`return document.title`, &title)
		if title == "done" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the attacker page never finished its attempts")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if after := controlFingerprint(t, e.s); after != before {
		t.Fatalf("the attacker page changed the control plane:\nbefore %s\nafter  %s", before, after)
	}
	if st := e.stored("DEMOBANK", id); st.RewardID == 0 {
		t.Fatalf("card %d of %s is gone after the attacker page", id, vid)
	}

	b.Open(e.s.ControlURL + "/__sim/dashboard")
	b.WaitFor("h1", wait)
}

// The issue's upload (a 500,000-character anchor and 1,000 aliases,
// 504 KB) and a smaller expansion bomb are refused with a 4xx naming the
// bound, uploaded or loaded by path, and the process stays small.
func TestScenarioUpload_boundsRefused(t *testing.T) {
	s := simtest.New(t)
	anchor := func(n, aliases int) string {
		return "version: 1\nname: bomb\ndescription: &s \"" + strings.Repeat("x", n) + "\"\nx: [" +
			strings.TrimSuffix(strings.Repeat("*s,", aliases), ",") + "]\n"
	}
	dir := t.TempDir()
	for _, c := range []struct{ name, yaml, want string }{
		{"issue's 504 KB file", anchor(500_000, 1000), "MaxFileBytes"},
		{"103 KB file", anchor(100_000, 1000), "MaxExpandedBytes"},
	} {
		st, out := ctl(t, s, http.MethodPost, "/__sim/scenarios?activate=true", c.yaml)
		if st != http.StatusBadRequest || !strings.Contains(string(out), c.want) {
			t.Errorf("%s uploaded: HTTP %d %s, want 400 naming %s", c.name, st, out, c.want)
		}
		path := filepath.Join(dir, "bomb.yaml")
		if err := os.WriteFile(path, []byte(c.yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		st, out = ctl(t, s, http.MethodPost, "/__sim/scenarios", map[string]any{"path": path})
		if st != http.StatusBadRequest || !strings.Contains(string(out), c.want) {
			t.Errorf("%s by path: HTTP %d %s, want 400 naming %s", c.name, st, out, c.want)
		}
		if err := sim.ValidateScenario(path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s validated: %v, want an error naming %s", c.name, err, c.want)
		}
	}
}

// One request with JSON nested 10,000 deep is journaled in a form every
// reader reads back: the journal, session export and report still answer.
func TestJournal_deepJSONRequestKeepsReadersWorking(t *testing.T) {
	s := simtest.New(t)
	deep := strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000)
	for _, body := range []string{deep, `{"a":` + deep + `}`} {
		res, err := http.Post(s.RewardsURL+"/api/GetReward", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode >= 500 {
			t.Fatalf("GetReward answered HTTP %d", res.StatusCode)
		}
	}
	for _, p := range []string{"/__sim/journal", "/__sim/session", "/__sim/report", "/__sim/dashboard"} {
		if st, out := ctl(t, s, http.MethodGet, p, nil); st != http.StatusOK {
			t.Errorf("GET %s after a deep body: HTTP %d %.300s", p, st, out)
		}
	}
}

// Every path a handler serves answers a malformed path with a 4xx.
func TestOddPaths_answer4xx(t *testing.T) {
	s := simtest.New(t)
	for _, base := range []string{s.RewardsURL, s.BankURL, s.HotdealsURL, s.ControlURL} {
		for _, p := range []string{"/assets/%ff", "/assets/%c0%af", "/assets/a%00b", "/__sim/%ff", "/api/%ff", "/%ff/%fe"} {
			res, err := http.Get(base + p)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode < 400 || res.StatusCode >= 500 {
				t.Errorf("GET %s%s: HTTP %d, want a 4xx", base, p, res.StatusCode)
			}
		}
	}
}

// The journal API shows no credential in clear: not the reference key,
// user token or sessionId an answer handed out, not the sessionId of a
// microsite query or page.
func TestJournalAPI_masksCredentials(t *testing.T) {
	e := newCardEnv(t)
	const vid = "mask-user"
	e.issue(vid, "UPI")
	tok := e.userToken(vid)
	sid := e.session(vid)
	if res, _ := e.get(e.micrositeURL(sid, vid)); res.StatusCode != http.StatusOK {
		t.Fatalf("microsite: HTTP %d", res.StatusCode)
	}
	st, page := ctl(t, e.s, http.MethodGet, "/__sim/journal?limit=1000", nil)
	if st != http.StatusOK {
		t.Fatalf("journal: HTTP %d", st)
	}
	for name, secret := range map[string]string{"reference key": e.ref, "user token": tok, "sessionId": sid} {
		if i := strings.Index(string(page), secret); i >= 0 {
			t.Errorf("the %s %s is in the journal API in clear: …%s…", name, secret, page[max(0, i-150):min(len(page), i+60)])
		}
		if !strings.Contains(string(page), secrets.Fingerprint(secret)) {
			t.Errorf("the %s's fingerprint is not in the journal API", name)
		}
	}
}
