package main

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The control verbs speak the command's words, not the control API's
// (issue 52, item 4): story apply/clear ask for --channel, not
// ?channel=X; a fault kind that needs a value is armed as the dashboard
// arms it, or the refusal names the flag; journal tail prints times in
// the scenario's zone, as answers and the dashboard do.
func TestControlVerbs_speakTheCommandsWords(t *testing.T) {
	bin := buildBinary(t)
	cmd, urls := startServe(t, bin, t.TempDir())
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	env := []string{envControlURL + "=" + urls["control"], "TZ=UTC"}

	for _, c := range []struct {
		args    []string
		code    int
		want    string // in standard output (exit 0) or standard error
		notWant string
	}{
		{[]string{"story", "apply", "stock-out"}, 0, "applied stock-out to channel DEMOBANK", ""},
		{[]string{"story", "clear"}, 0, "cleared stock-out from channel DEMOBANK", ""},
		{[]string{"channel", "add", "CI-42", "--like", "DEMOBANK"}, 0, "registered CI-42", ""},
		{[]string{"story", "apply", "stock-out"}, 1, "give one with --channel (", "?channel="},
		{[]string{"story", "clear"}, 1, "give one with --channel (", "?channel="},
		{[]string{"story", "apply", "stock-out", "--channel", "CI-42"}, 0, "applied stock-out to channel CI-42", ""},
		{[]string{"fault", "add", "--endpoint", "fetchCouponCode", "--kind", "commit-then-delay", "--times", "1"}, 0, "commit-then-delay 30s on fetchCouponCode", ""},
		{[]string{"fault", "add", "--endpoint", "fetchCouponCode", "--kind", "delay", "--times", "1"}, 0, "delay 3s on fetchCouponCode", ""},
		{[]string{"fault", "add", "--endpoint", "fetchCouponCode", "--kind", "commit-then-delay", "--delay", "2s", "--times", "1"}, 0, "commit-then-delay 2s", ""},
		{[]string{"fault", "add", "--endpoint", "GetAuthToken", "--kind", "http-status", "--times", "1"}, 0, "http-status HTTP 503 on GetAuthToken", ""},
		{[]string{"fault", "add", "--endpoint", "fetchCouponCode", "--kind", "coupon-error"}, 1, "--kind coupon-error needs --code", ""},
		{[]string{"fault", "ls", "--active"}, 0, "commit-then-delay 2s", "(spent)"},
	} {
		out, errOut, code := verbRun(t, bin, env, c.args...)
		got := out
		if code != 0 {
			got = out + errOut
		}
		if code != c.code || !strings.Contains(got, c.want) || c.notWant != "" && strings.Contains(got, c.notWant) {
			t.Errorf("rewardsim %s: exit %d, want %d with %q (not %q)\nstdout: %s\nstderr: %s", strings.Join(c.args, " "), code, c.code, c.want, c.notWant, out, errOut)
		}
	}

	claim(t, urls["all"], "TX-TAIL")
	tail, errOut, code := verbRun(t, bin, env, "journal", "tail", "-n", "1", "--endpoint", "fetchCouponCode")
	if code != 0 {
		t.Fatalf("journal tail: exit %d: %s", code, errOut)
	}
	clk, _, _ := verbRun(t, bin, env, "clock", "--json")
	var now struct{ Now time.Time }
	if err := json.Unmarshal([]byte(clk), &now); err != nil {
		t.Fatalf("clock --json: %v: %s", err, clk)
	}
	if _, off := now.Now.Zone(); off != 5*3600+1800 {
		t.Fatalf("the default scenario's zone is +05:30, the clock says %v", now.Now)
	}
	printed, err := time.Parse("15:04:05.000", strings.Fields(tail)[0])
	if err != nil {
		t.Fatalf("journal tail's line does not start with a time: %q", tail)
	}
	h, m, sec := now.Now.Clock()
	want := time.Date(0, 1, 1, h, m, sec, 0, time.UTC)
	if d := want.Sub(printed); d < -time.Minute || d > 2*time.Minute {
		t.Errorf("journal tail printed %s, the scenario's clock (+05:30) says %s: not its zone", printed.Format("15:04:05"), now.Now.Format("15:04:05"))
	}
}
