package main

import (
	"context"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/publisher"
)

// asChannel is DEMOBANK's publisher client (the development key) calling
// as channel name at base.
func asChannel(t *testing.T, base, name string) *publisher.Client {
	c := demoPublisher(t, base)
	c.Channel, c.ChannelID = name, name
	return c
}

// Issue 50, item 11, on a real `rewardsim serve` and its CLI: a one-shot
// rule spent on ORIG is not armed again on `channel add COPY --like
// ORIG`; a live one is, with counters at zero; the copy's verify counts
// only its own calls.
func TestServe_likeCopiesNoSpentRules(t *testing.T) {
	bin := issue20Binary(t)
	cmd, urls := startServe(t, bin, t.TempDir())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	control, ctx := urls["control"], context.Background()
	must := func(args ...string) string {
		t.Helper()
		out, code := cli(t, bin, []string{"REWARDSIM_CONTROL_URL=" + control}, args...)
		if code != 0 {
			t.Fatalf("rewardsim %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
		return out
	}
	must("channel", "add", "ORIG", "--like", "DEMOBANK")
	must("fault", "add", "--id", "SPENT", "--endpoint", "getSecuredReferenceToken", "--kind", "internal-error", "--channel", "ORIG", "--times", "1")
	must("fault", "add", "--id", "LIVE", "--endpoint", "fetchCouponCode", "--kind", "internal-error", "--channel", "ORIG", "--times", "1")
	if _, err := asChannel(t, urls["all"], "ORIG").ReferenceToken(ctx); err == nil {
		t.Fatal("the one-shot rule did not fire on ORIG")
	}
	must("channel", "add", "COPY", "--like", "ORIG")
	if out := must("fault", "ls"); strings.Contains(out, "SPENT~COPY") || !strings.Contains(out, "LIVE~COPY") {
		t.Errorf("fault ls after the copy:\n%s\nwant LIVE~COPY armed and no SPENT~COPY", out)
	}
	must("verify", "--channel", "COPY", "--endpoint", "getSecuredReferenceToken", "--times", "0")
	if _, err := asChannel(t, urls["all"], "COPY").ReferenceToken(ctx); err != nil {
		t.Errorf("COPY's call was faulted by ORIG's spent one-shot rule: %v", err)
	}
	must("verify", "--channel", "COPY", "--endpoint", "getSecuredReferenceToken", "--times", "1")
}
