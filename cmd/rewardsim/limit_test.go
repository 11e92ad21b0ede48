package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/rewardsim/rewardsim/schemas"
)

// limitReply is one answered claim: its status, headers and body.
type limitReply struct {
	status int
	header http.Header
	body   []byte
	took   time.Duration
}

// claimAs is one fetchCouponCode of channel (its appKey and secKey) for
// user vu.
func claimAs(t *testing.T, base, channel, keys, vu, tx string) limitReply {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/api/fetchCouponCode", strings.NewReader(
		`{"offerId":"OFFER-DEMO","virtualId":"`+vu+`","channelName":"`+channel+`","extTransactionId":"`+tx+`","coinsUsed":"100"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CHANNELID", channel)
	req.Header.Set("Authorization", "ServiceAppKey "+keys)
	start := time.Now()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return limitReply{}
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return limitReply{res.StatusCode, res.Header, body, time.Since(start)}
}

// answerSchema compiles one endpoint's answer schema with every schema it
// refers to.
func answerSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	entries, _ := fs.ReadDir(schemas.FS, ".")
	for _, e := range entries {
		raw, _ := fs.ReadFile(schemas.FS, e.Name())
		if err := c.AddResource(e.Name(), bytes.NewReader(raw)); err != nil {
			t.Fatal(err)
		}
	}
	s, err := c.Compile(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkRefusal says what is wrong with a limit's refusal: its status, its
// Retry-After and its body against the endpoint's own answer schema.
func checkRefusal(a limitReply, status int, retryAfter bool, s *jsonschema.Schema) error {
	var v any
	if err := json.Unmarshal(a.body, &v); err != nil {
		return fmt.Errorf("body %q is not JSON", a.body)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("body %s does not match fetchCouponCode.response.json: %v", a.body, err)
	}
	if !bytes.Contains(a.body, []byte(`"errorCode":"INTERNAL_ERROR"`)) {
		return fmt.Errorf("body %s is not the endpoint's platform failure", a.body)
	}
	if a.status != status {
		return fmt.Errorf("HTTP %d, want %d", a.status, status)
	}
	ra := a.header.Get("Retry-After")
	if n, err := strconv.Atoi(ra); retryAfter && (err != nil || n < 1) || !retryAfter && ra != "" {
		return fmt.Errorf("Retry-After %q (want one: %v)", ra, retryAfter)
	}
	if !strings.HasPrefix(a.header.Get("X-Rewardsim-Limit"), "refused ") {
		return fmt.Errorf("X-Rewardsim-Limit %q", a.header.Get("X-Rewardsim-Limit"))
	}
	return nil
}

// twoChannels is the default scenario with a second channel, OTHER.
func twoChannels(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "scenarios", "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	y := strings.Replace(string(raw), "    secKey: DEMOSECKEY\n", "    secKey: DEMOSECKEY\n"+
		"  - name: OTHER\n    channelId: OTHER\n    certificateFile: builtin:publisher-dev.crt\n    appKey: OTHERKEY\n    secKey: OTHERSEC\n", 1)
	path := filepath.Join(t.TempDir(), "two.yaml")
	if err := os.WriteFile(path, []byte(y), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// clause: CAP-1
// rewardsim limit against a real serve: the verbs' lines and refusals;
// each reading of the refusal switches (status 503, 429, 200; with and
// without Retry-After), its body valid against the endpoint's schema;
// exactly N of parallel calls in flight admitted while another channel
// is answered at once; a bounded wait admitting calls as places free;
// and the journal, metrics and limit ls saying what the limit did.
func TestLimitVerbs_holdAChannelToItsLimit(t *testing.T) {
	bin := buildBinary(t)
	data, two := t.TempDir(), twoChannels(t)
	cmd, urls := startServe(t, bin, data, "--scenario", two)
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	env := []string{envControlURL + "=" + urls["control"]}
	run := func(code int, want string, args ...string) {
		t.Helper()
		out, errOut, got := verbRun(t, bin, env, args...)
		if got != code || !strings.Contains(out+errOut, want) {
			t.Errorf("rewardsim %s: exit %d, want %d with %q\nstdout: %s\nstderr: %s", strings.Join(args, " "), got, code, want, out, errOut)
		}
	}
	schema := answerSchema(t, "fetchCouponCode.response.json")
	const demo = "DEMOAPPKEY:DEMOSECKEY"

	run(0, "no capacity limit is in force", "limit", "ls")
	run(1, "inFlight: must be <= 100000", "limit", "set", "--channel", "DEMOBANK", "--in-flight", "100001")
	run(1, "no channel named", "limit", "set", "--channel", "NOPE", "--in-flight", "1")
	run(1, "needs --in-flight or --rate", "limit", "set", "--channel", "DEMOBANK")
	run(1, "has no limit set at run time", "limit", "rm", "--channel", "DEMOBANK")

	// The switch readings, on a bucket of one token that refills in 1000s.
	run(0, "limited DEMOBANK: 0.001/s (burst 1), refused at once (run-time)", "limit", "set", "--channel", "DEMOBANK", "--rate", "0.001")
	if a := claimAs(t, urls["all"], "DEMOBANK", demo, "VU-R0", "TX-R0"); a.status != http.StatusOK || a.header.Get("X-Rewardsim-Limit") != "" {
		t.Fatalf("the first call took the token: HTTP %d %s %v", a.status, a.body, a.header)
	}
	for i, c := range []struct {
		set        []string
		status     int
		retryAfter bool
	}{
		{nil, 503, true},
		{[]string{"limits.status", "429"}, 429, true},
		{[]string{"limits.retryAfter", "false"}, 429, false},
		{[]string{"limits.status", "200"}, 200, false},
	} {
		if c.set != nil {
			run(0, "for channel DEMOBANK", append([]string{"switch", "set"}, append(c.set, "--channel", "DEMOBANK")...)...)
		}
		a := claimAs(t, urls["all"], "DEMOBANK", demo, fmt.Sprintf("VU-R%d", i+1), fmt.Sprintf("TX-R%d", i+1))
		if err := checkRefusal(a, c.status, c.retryAfter, schema); err != nil {
			t.Errorf("reading %v: %v", c.set, err)
		}
	}
	if a := claimAs(t, urls["all"], "DEMOBANK", demo, "VU-R9", "TX-R0"); a.header.Get("Retry-After") != "" {
		t.Error("limits.retryAfter false still says Retry-After")
	}
	run(0, "reset", "switch", "reset", "--channel", "DEMOBANK")
	run(0, "removed the run-time limit of channel DEMOBANK", "limit", "rm", "--channel", "DEMOBANK")

	// Exactly N in flight: each admitted call is held 3s by a delay fault
	// (the fault fires after admission, so it holds its place).
	run(0, "armed", "fault", "add", "--endpoint", "fetchCouponCode", "--kind", "delay", "--delay", "3s", "--channel", "DEMOBANK")
	run(0, "limited DEMOBANK: 3 in flight, refused at once (run-time)", "limit", "set", "--channel", "DEMOBANK", "--in-flight", "3")
	const calls = 10
	answers := make([]limitReply, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = claimAs(t, urls["all"], "DEMOBANK", demo, fmt.Sprintf("VU-P%d", i), fmt.Sprintf("TX-P%d", i))
		}()
	}
	// Liveness: while DEMOBANK is full, OTHER is answered at once.
	time.Sleep(500 * time.Millisecond)
	other := claimAs(t, urls["all"], "OTHER", "OTHERKEY:OTHERSEC", "VU-O", "TX-O")
	if other.header.Get("X-Rewardsim-Limit") != "" || other.status == 503 || other.took > 2500*time.Millisecond {
		t.Errorf("OTHER, unlimited, answered HTTP %d in %s (limit %q) while DEMOBANK was full", other.status, other.took, other.header.Get("X-Rewardsim-Limit"))
	}
	wg.Wait()
	admitted, refused := 0, 0
	for _, a := range answers {
		switch {
		case a.status == http.StatusOK && bytes.Contains(a.body, []byte(`"Fetched Successfully"`)):
			admitted++
		case checkRefusal(a, 503, true, schema) == nil:
			refused++
		default:
			t.Errorf("neither admitted nor refused by the limit: HTTP %d %s", a.status, a.body)
		}
	}
	if admitted != 3 || refused != calls-3 {
		t.Errorf("%d admitted, %d refused; want exactly 3 admitted of %d in parallel", admitted, refused, calls)
	}
	run(0, "DEMOBANK: 3 in flight, refused at once (run-time); now 0 in flight, 0 waiting; admitted 3, waited 0, refused 7", "limit", "ls")

	// A bounded wait: one place, calls held 300ms each, wait 10s: all
	// admitted in turn, those that waited say so.
	run(0, "armed", "fault", "add", "--id", "short", "--endpoint", "fetchCouponCode", "--kind", "delay", "--delay", "300ms", "--channel", "OTHER")
	run(0, "limited OTHER: 1 in flight, waits up to 10s (run-time)", "limit", "set", "--channel", "OTHER", "--in-flight", "1", "--wait", "10s")
	waitedRe := regexp.MustCompile(`^waited in-flight [0-9.]+m?s$`)
	var waitedN sync.WaitGroup
	held := make(chan string, 3)
	for i := range 3 {
		waitedN.Add(1)
		go func() {
			defer waitedN.Done()
			a := claimAs(t, urls["all"], "OTHER", "OTHERKEY:OTHERSEC", fmt.Sprintf("VU-W%d", i), fmt.Sprintf("TX-W%d", i))
			if a.status == 503 {
				t.Errorf("a waiting call was refused: %s %v", a.body, a.header)
			}
			held <- a.header.Get("X-Rewardsim-Limit")
		}()
	}
	waitedN.Wait()
	close(held)
	waited := 0
	for h := range held {
		if waitedRe.MatchString(h) {
			waited++
		}
	}
	if waited != 2 {
		t.Errorf("%d calls say they waited, want 2 of 3", waited)
	}

	// The journal and the metrics say what the limit did.
	res, err := http.Get(urls["control"] + "/__sim/journal?channel=DEMOBANK&endpoint=fetchCouponCode&limit=100")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if n := strings.Count(string(page), `"limit":{"refused":true,"reason":"in-flight"`); n != 7 {
		t.Errorf("the journal shows %d in-flight refusals, want 7", n)
	}
	if !strings.Contains(string(page), `"fault":"limit"`) {
		t.Error("the journal does not name the limit as the fault")
	}
	res, err = http.Get(urls["control"] + "/__sim/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{
		`rewardsim_limit_refused_total{channel="DEMOBANK",endpoint="fetchCouponCode",reason="in-flight"} 7`,
		`rewardsim_limit_refused_total{channel="DEMOBANK",endpoint="fetchCouponCode",reason="rate"} 5`,
		`rewardsim_limit_waited_total{channel="OTHER",endpoint="fetchCouponCode"} 2`,
	} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("metrics lack %s", want)
		}
	}

	// The report: the refused calls never sent again are found (CAP-1).
	run(0, "CAP-1  x12  A call refused by the channel's capacity limit was never sent again", "report", "--channel", "DEMOBANK", "--fail-on", "none")

	// Kept across a restart: the run-time limits come back.
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
	cmd, urls = startServe(t, bin, data, "--scenario", two)
	env = []string{envControlURL + "=" + urls["control"]}
	run(0, "DEMOBANK: 3 in flight, refused at once (run-time); now 0 in flight, 0 waiting; admitted 0", "limit", "ls")
	run(0, "OTHER: 1 in flight, waits up to 10s (run-time)", "limit", "ls", "--channel", "OTHER")
}
