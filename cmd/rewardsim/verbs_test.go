package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// verbRun runs the binary with args (the control URL and token in its
// environment, as a developer's shell has them) and returns its standard
// output, standard error and exit status.
func verbRun(t *testing.T, bin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// claim is one fetchCouponCode a publisher sends, and what it answered.
func claim(t *testing.T, base, tx string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/api/fetchCouponCode", strings.NewReader(
		`{"offerId":"OFFER-DEMO","virtualId":"VU-1","channelName":"DEMOBANK","extTransactionId":"`+tx+`","coinsUsed":"100"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CHANNELID", "DEMOBANK")
	req.Header.Set("Authorization", "ServiceAppKey DEMOAPPKEY:DEMOSECKEY")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(res.Body)
	return b.String()
}

// Every control verb against a real `rewardsim serve` with a control
// token: the short line, --json (the control API's own JSON), exit 1 for
// a refusal with its reason, exit 2 when the simulator cannot be
// reached, and shell completion of a partial endpoint name.
func TestControlVerbs(t *testing.T) {
	bin := buildBinary(t)
	cmd, urls := startServe(t, bin, t.TempDir(), "--control-token", "s3cret")
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	env := []string{envControlURL + "=" + urls["control"], envControlToken + "=s3cret"}
	scenario := filepath.Join(t.TempDir(), "ci-42.yaml")
	os.WriteFile(scenario, []byte("version: 1\nname: ci-42\nextends: default\n"), 0o600)

	for _, c := range []struct {
		args []string
		code int
		want string // in standard output (exit 0) or standard error
	}{
		{[]string{"fault", "add", "--endpoint", "fetchCouponCode", "--kind", "coupon-error", "--code", "COUPON_EXHAUSTED", "--times", "1", "--id", "out"}, 0, "armed out: coupon-error COUPON_EXHAUSTED on fetchCouponCode, every channel, 1 time(s)"},
		{[]string{"fault", "ls"}, 0, "out: coupon-error COUPON_EXHAUSTED on fetchCouponCode"},
		{[]string{"fault", "ls", "--json"}, 0, `"errorCode": "COUPON_EXHAUSTED"`},
		{[]string{"fault", "add", "--endpoint", "GetAuthToken", "--kind", "coupon-error", "--code", "COUPON_EXHAUSTED"}, 1, "refused (HTTP 400): endpoint GetAuthToken cannot show a coupon-error fault"},
		{[]string{"fault", "add", "--endpoint", "GetAuthToken", "--kind", "internal-error", "--json", "--channel", "NOPE"}, 1, `"error": "no channel named`},
		{[]string{"channel", "add", "CI-42", "--webhook-url", "http://127.0.0.1:9/hooks"}, 0, "registered CI-42 (CHANNELID CI-42, registered, scenario default~CI-42, like DEMOBANK, webhook http://127.0.0.1:9/hooks)"},
		{[]string{"channel", "ls"}, 0, "DEMOBANK (CHANNELID DEMOBANK, scenario, scenario default)"},
		{[]string{"channel", "add", "CI-CERT", "--certificate", filepath.Join("..", "..", "certs", "publisher-dev.crt"), "--app-key", "K", "--sec-key", "S"}, 0, "registered CI-CERT (CHANNELID CI-CERT, registered, scenario default)"},
		{[]string{"channel", "add", "CI-BAD", "--certificate", "no-such.pem"}, 1, "no-such.pem"},
		{[]string{"channel", "rm", "CI-CERT", "--json"}, 0, "{}"},
		{[]string{"scenario", "load", scenario}, 0, "loaded scenario ci-42 (not active: scenario activate ci-42)"},
		{[]string{"channel", "ls", "--json"}, 0, `"name": "CI-42"`},
		{[]string{"fault", "add", "--endpoint", "GetAuthToken", "--kind", "signature-mismatch", "--channel", "CI-42", "--id", "sig"}, 0, "armed sig: signature-mismatch on GetAuthToken, channel CI-42, every call"},
		{[]string{"fault", "ls", "--channel", "CI-42"}, 0, "sig: signature-mismatch"},
		{[]string{"fault", "rm", "--all", "--channel", "CI-42"}, 0, "disarmed 1 fault rule(s) of channel CI-42 sig"},
		{[]string{"fault", "rm", "sig"}, 1, `refused (HTTP 404): no fault rule "sig"`},
		{[]string{"clock", "set", "2026-01-15T10:00:00+05:30", "--frozen"}, 0, "now 2026-01-15T10:00:00+05:30 (frozen)"},
		{[]string{"clock", "advance", "31m", "--channel", "CI-42"}, 0, "now 2026-01-15T10:31:00+05:30 (frozen), channel CI-42's own clock"},
		{[]string{"clock", "--channel", "CI-42", "--json"}, 0, `"own": true`},
		{[]string{"clock", "real", "--channel", "CI-42"}, 0, "channel CI-42 follows the global clock"},
		{[]string{"clock", "advance", "sideways"}, 1, `"sideways" is not a duration`},
		{[]string{"clock", "set", "0001-01-01T00:00:00Z"}, 1, "refused (HTTP 400): time 0001-01-01T00:00:00Z is outside 1970-01-01 to 2262-01-01 (UTC)"},
		{[]string{"clock", "set", "0001-01-01T00:00:00Z", "--channel", "CI-42"}, 1, "refused (HTTP 400): time 0001-01-01T00:00:00Z is outside 1970-01-01 to 2262-01-01 (UTC)"},
		{[]string{"clock", "advance", "2500000h", "--channel", "CI-42"}, 1, "refused (HTTP 400): advancing by 2500000h0m0s would move the clock outside 1970-01-01 to 2262-01-01 (UTC)"},
		{[]string{"clock", "real"}, 0, "(real)"},
		{[]string{"clock"}, 0, "(real)"},
		{[]string{"scenario", "load", scenario, "--activate", "--channel", "CI-42"}, 0, "loaded scenario ci-42 now governs channel CI-42"},
		{[]string{"scenario", "ls"}, 0, "* default: One demo publisher"},
		{[]string{"scenario", "ls"}, 0, "channel CI-42 runs ci-42"},
		{[]string{"scenario", "activate", "default", "--channel", "CI-42"}, 0, "scenario default now governs channel CI-42"},
		{[]string{"scenario", "activate", "nope"}, 1, "refused (HTTP 404)"},
		{[]string{"state", "reset", "--channel", "CI-42"}, 0, "wiped the state of channel CI-42"},
		{[]string{"state", "reset", "--json"}, 0, `"reset": "*"`},
		{[]string{"state", "user", "DEMOBANK", "VU-1"}, 0, "VU-1 on DEMOBANK at "},
		{[]string{"state", "user", "NOPE", "VU-1"}, 1, `no channel named "NOPE"`},
		{[]string{"channel", "rm", "CI-42"}, 0, "removed channel CI-42"},
		{[]string{"channel", "rm", "DEMOBANK"}, 1, `refused (HTTP 404): no channel named "DEMOBANK" was registered at run time`},
		{[]string{"fault", "ls", "--control-token", "wrong"}, 1, "refused (HTTP 401)"},
		{[]string{"fault", "ls", "--control", "http://127.0.0.1:1"}, 2, "cannot reach the simulator"},
		{[]string{"__complete", "fault", "add", "--endpoint", "fetchC"}, 0, "fetchCouponCode\n:4\n"},
		{[]string{"__complete", "fault", "add", "--endpoint", "GetAuthToken", "--kind", ""}, 0, "internal-error\nsignature-mismatch\n"},
		{[]string{"__complete", "fault", "add", "--code", "COUPON_E"}, 0, "COUPON_EXHAUSTED\n:4\n"},
		{[]string{"__complete", "fault", "ls", "--channel", "DEMO"}, 0, "DEMOBANK\tscenario, scenario default\n:4\n"},
	} {
		out, errOut, code := verbRun(t, bin, env, c.args...)
		got := out
		if code != 0 {
			got = out + errOut
		}
		if code != c.code || !strings.Contains(got, c.want) {
			t.Errorf("rewardsim %s: exit %d, want %d with %q\nstdout: %s\nstderr: %s", strings.Join(c.args, " "), code, c.code, c.want, out, errOut)
		}
	}

	// An armed one-shot fault shows on the publisher's next call, and
	// journal tail shows that exchange in one line.
	// A story: applied, it shows on the next claim; cleared, the claim is served.
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"story", "ls"}, 0, "stock-out             Every coupon claim answers COUPON_EXHAUSTED"},
		{[]string{"__complete", "story", "apply", "sto"}, 0, "stock-out\tEvery coupon claim answers COUPON_EXHAUSTED"},
		{[]string{"story", "apply", "stock-out", "--channel", "DEMOBANK"}, 0, "applied stock-out to channel DEMOBANK: Every coupon claim"},
		{[]string{"story", "apply", "stock-out"}, 1, "refused (HTTP 409): story stock-out is already applied to channel DEMOBANK"},
		{[]string{"story", "ls", "--json"}, 0, `"DEMOBANK": [`},
	} {
		out, errOut, code := verbRun(t, bin, env, c.args...)
		if code != c.code || !strings.Contains(out+errOut, c.want) {
			t.Errorf("rewardsim %s: exit %d, want %d with %q\nstdout: %s\nstderr: %s", strings.Join(c.args, " "), code, c.code, c.want, out, errOut)
		}
	}
	if got := claim(t, urls["all"], "TX-S1"); !strings.Contains(got, "COUPON_EXHAUSTED") {
		t.Fatalf("the claim after story apply stock-out answered %s", got)
	}
	if out, errOut, code := verbRun(t, bin, env, "story", "clear"); code != 0 || !strings.Contains(out, "cleared stock-out from channel DEMOBANK") {
		t.Fatalf("story clear: exit %d %s%s", code, out, errOut)
	}
	if got := claim(t, urls["all"], "TX-S2"); !strings.Contains(got, "Fetched Successfully") {
		t.Fatalf("the claim after story clear answered %s", got)
	}

	verbRun(t, bin, env, "fault", "add", "--endpoint", "fetchCouponCode", "--kind", "coupon-error", "--code", "COUPON_EXHAUSTED", "--times", "1")
	if got := claim(t, urls["all"], "TX-V1"); !strings.Contains(got, "COUPON_EXHAUSTED") {
		t.Fatalf("the claim after fault add answered %s", got)
	}
	out, errOut, code := verbRun(t, bin, env, "journal", "tail", "-n", "1", "--endpoint", "fetchCouponCode")
	if code != 0 || !strings.Contains(out, "DEMOBANK") || !strings.Contains(out, "fetchCouponCode") || !strings.Contains(out, "COUPON_EXHAUSTED") || strings.Count(out, "\n") != 1 {
		t.Fatalf("journal tail: exit %d\n%s%s", code, out, errOut)
	}
	out, _, _ = verbRun(t, bin, env, "journal", "tail", "-n", "1", "--json", "--channel", "DEMOBANK")
	var e struct{ Endpoint, Fault string }
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &e); err != nil || e.Endpoint != "fetchCouponCode" || e.Fault != "coupon-error" {
		t.Fatalf("journal tail --json: %v %+v\n%s", err, e, out)
	}
	follow(t, bin, env, urls["all"])
}

// follow runs `journal tail -f -n 0` and reads the line of a claim made
// while it follows.
func follow(t *testing.T, bin string, env []string, public string) {
	t.Helper()
	cmd := exec.Command(bin, "journal", "tail", "-f", "-n", "0", "--every", "100ms", "--endpoint", "fetchCouponCode")
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
	}()
	time.Sleep(300 * time.Millisecond) // the first read (of nothing) is done
	claim(t, public, "TX-FOLLOW")
	select {
	case l := <-lines:
		if !strings.Contains(l, "fetchCouponCode") || !strings.Contains(l, "success 200") {
			t.Fatalf("journal tail -f printed %q", l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("journal tail -f printed nothing for a new exchange")
	}
}
