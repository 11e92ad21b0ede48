package main

import (
	"strings"
	"syscall"
	"testing"
)

// rewardsim switch against a real serve: set for a channel, listed with
// the default, the scenario's value and the override, refused values
// naming the allowed ones, completion of names and values, and the
// override still in force, and answering, after a restart (issue 52,
// item 1; SIM-2, CPN-5).
func TestSwitchVerbs_setPersistsAcrossARestart(t *testing.T) {
	bin := buildBinary(t)
	data := t.TempDir()
	cmd, urls := startServe(t, bin, data)
	env := []string{envControlURL + "=" + urls["control"]}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"switch", "set", "coupons.duplicate", "reject", "--channel", "DEMOBANK"}, 0, "coupons.duplicate is reject for channel DEMOBANK (default original, scenario original)"},
		{[]string{"switch", "set", "coupons.duplicate", "replay", "--channel", "DEMOBANK"}, 1, `"replay" is not allowed; it takes original, reject`},
		{[]string{"switch", "set", "cards.listMaxLimit", "0"}, 1, "it takes an integer from 1 to 1000"},
		{[]string{"switch", "set", "nope", "x"}, 1, "the switches are failureHttpStatus"},
		{[]string{"switch", "ls", "--channel", "DEMOBANK"}, 0, "coupons.duplicate                  reject             override for this channel (default original, scenario original)"},
		{[]string{"switch", "ls", "--channel", "DEMOBANK", "--json"}, 0, `"override": "reject"`},
		{[]string{"__complete", "switch", "set", "coupons.du"}, 0, "coupons.duplicate\t"},
		{[]string{"__complete", "switch", "set", "coupons.duplicate", ""}, 0, "original\nreject\n:4\n"},
		{[]string{"__complete", "switch", "set", "webhook.retry", "n"}, 0, "none\n:4\n"},
		{[]string{"__complete", "switch", "reset", "sdk."}, 0, "sdk.emptySessionId\nsdk.missCallback\n:4\n"},
	} {
		out, errOut, code := verbRun(t, bin, env, c.args...)
		if got := out + errOut; code != c.code || !strings.Contains(got, c.want) {
			t.Errorf("rewardsim %s: exit %d, want %d with %q\nstdout: %s\nstderr: %s", strings.Join(c.args, " "), code, c.code, c.want, out, errOut)
		}
	}
	claim(t, urls["all"], "TX-SWR")
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()

	cmd, urls = startServe(t, bin, data)
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	env = []string{envControlURL + "=" + urls["control"]}
	if out, _, _ := verbRun(t, bin, env, "switch", "ls", "--channel", "DEMOBANK"); !strings.Contains(out, "reject             override for this channel") {
		t.Errorf("after the restart the override is gone: %s", out)
	}
	if got := claim(t, urls["all"], "TX-SWR"); !strings.Contains(got, `"errorCode":"DUPLICATE_TRANSACTION"`) {
		t.Errorf("a duplicate after the restart answered %s, want DUPLICATE_TRANSACTION (coupons.duplicate reject kept)", got)
	}
	if out, errOut, code := verbRun(t, bin, env, "switch", "reset", "--channel", "DEMOBANK"); code != 0 || !strings.Contains(out, "reset coupons.duplicate of channel DEMOBANK") {
		t.Errorf("switch reset: exit %d %s%s", code, out, errOut)
	}
}
