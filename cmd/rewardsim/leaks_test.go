package main

import (
	"context"
	"encoding/json"
	"net/http"
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

// freshChannel adds name like DEMOBANK on a shared box and returns a
// client with the fresh credentials the answer gave, once.
func freshChannel(t *testing.T, control, base, name string) *publisher.Client {
	t.Helper()
	st, out, _ := ctlCall(t, control, "POST", "/__sim/channels", map[string]any{"name": name, "like": "DEMOBANK"})
	var made struct {
		Credentials *struct{ AppKey, SecKey, PrivateKey string }
	}
	if err := json.Unmarshal(out, &made); st != http.StatusCreated || err != nil || made.Credentials == nil {
		t.Fatalf("add %s like DEMOBANK: HTTP %d %s, want fresh credentials", name, st, out)
	}
	key, err := publisher.ParsePrivateKeyPEM([]byte(made.Credentials.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	return &publisher.Client{HTTP: http.DefaultClient, RewardsURL: base, BankURL: base, HotdealsURL: base,
		ChannelID: name, Channel: name, Key: key, AppKey: made.Credentials.AppKey, SecKey: made.Credentials.SecKey}
}

// Issue 50, item 10, on `rewardsim serve --shared-box`: job A's call on
// JOBB with A's key is refused and is not JOBB's call: `rewardsim
// verify --times 1` on JOBB holds with JOBB's own call; the journal
// keeps the refused one under JOBB, marked unadmitted.
func TestServe_verifyCountsOnlyAdmittedCalls(t *testing.T) {
	bin := issue20Binary(t)
	cmd, urls := startServe(t, bin, t.TempDir(), "--shared-box")
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	control, ctx := urls["control"], context.Background()
	a := freshChannel(t, control, urls["all"], "JOBA")
	b := freshChannel(t, control, urls["all"], "JOBB")
	onB := *a
	onB.ChannelID, onB.Channel = b.ChannelID, b.Channel
	if _, err := onB.ReferenceToken(ctx); err == nil {
		t.Fatal("A's key signed for JOBB")
	}
	if _, err := b.ReferenceToken(ctx); err != nil {
		t.Fatalf("JOBB's own call: %v", err)
	}
	env := []string{"REWARDSIM_CONTROL_URL=" + control}
	if out, code := cli(t, bin, env, "verify", "--channel", "JOBB", "--endpoint", "getSecuredReferenceToken", "--times", "1"); code != 0 {
		t.Errorf("verify JOBB --times 1: exit %d\n%s", code, out)
	}
	st, out, _ := ctlCall(t, control, "GET", "/__sim/journal?channel=JOBB&endpoint=getSecuredReferenceToken", nil)
	if st != http.StatusOK || strings.Count(string(out), `"seq"`) != 2 || strings.Count(string(out), `"unadmitted":true`) != 1 {
		t.Errorf("journal of JOBB: HTTP %d %.600s, want both calls, the refused one unadmitted", st, out)
	}
}

// Issue 50, item 12, on a real `rewardsim serve` and its CLI: `fault rm`
// of a story's rule, or `channel rm`, leaves the story no longer applied
// (`story ls`), its header off the channel's answers, and `story apply`
// works again.
func TestServe_removedStoryRuleEndsTheStory(t *testing.T) {
	bin := issue20Binary(t)
	cmd, urls := startServe(t, bin, t.TempDir())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	env := []string{"REWARDSIM_CONTROL_URL=" + urls["control"]}
	must := func(args ...string) string {
		t.Helper()
		out, code := cli(t, bin, env, args...)
		if code != 0 {
			t.Fatalf("rewardsim %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
		return out
	}
	c := asChannel(t, urls["all"], "CI-S")
	storyOf := func() string {
		res, err := c.CallSigned(context.Background(), c.RewardsURL+"/api/getSecuredReferenceToken", "", map[string]string{"bName": c.Channel})
		if res == nil {
			t.Fatal(err)
		}
		return res.Header.Get("X-Rewardsim-Story")
	}
	must("channel", "add", "CI-S", "--like", "DEMOBANK")
	for _, remove := range [][]string{
		{"fault", "rm", "story:uat-down:CI-S:1"},
		{"channel", "rm", "CI-S"},
	} {
		must("story", "apply", "uat-down", "--channel", "CI-S")
		if got := storyOf(); got != "uat-down" {
			t.Fatalf("after story apply: X-Rewardsim-Story %q, want uat-down", got)
		}
		must(remove...)
		if remove[0] == "channel" {
			must("channel", "add", "CI-S", "--like", "DEMOBANK")
		}
		if out := must("story", "ls"); strings.Contains(out, "applied to CI-S") {
			t.Errorf("after rewardsim %s, story ls still says:\n%s", strings.Join(remove, " "), out)
		}
		if got := storyOf(); got != "" {
			t.Errorf("after rewardsim %s: X-Rewardsim-Story %q on an answer no story shapes", strings.Join(remove, " "), got)
		}
	}
	must("story", "apply", "uat-down", "--channel", "CI-S")
}

// Issue 50, item 13, on a real `rewardsim serve --shared-box
// --control-token BOX` and its CLI: `channel token JOBA` prints JOBA's
// own token; with it (as --control-token, like the box's) the CLI acts
// on JOBA and is refused on JOBB and on box-wide calls; the token
// survives a restart (the store keeps its hash).
func TestServe_channelTokenActsOnItsChannelAlone(t *testing.T) {
	bin, data := issue20Binary(t), t.TempDir()
	serve := []string{"--shared-box", "--control-token", "BOX"}
	cmd, urls := startServe(t, bin, data, serve...)
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	as := func(token string, args ...string) (string, int) {
		return cli(t, bin, []string{"REWARDSIM_CONTROL_URL=" + urls["control"], "REWARDSIM_CONTROL_TOKEN=" + token}, args...)
	}
	for _, ch := range []string{"JOBA", "JOBB"} {
		if out, code := as("BOX", "channel", "add", ch, "--like", "DEMOBANK"); code != 0 {
			t.Fatalf("channel add %s: exit %d\n%s", ch, code, out)
		}
	}
	out, code := as("BOX", "channel", "token", "JOBA")
	tok := strings.TrimSpace(out)
	if code != 0 || !strings.HasPrefix(tok, "ct-") {
		t.Fatalf("channel token JOBA: exit %d\n%s", code, out)
	}
	check := func(when string) {
		t.Helper()
		for _, tc := range []struct {
			args []string
			ok   bool
		}{
			{[]string{"fault", "add", "--id", "A1", "--endpoint", "fetchCouponCode", "--kind", "internal-error", "--channel", "JOBA"}, true},
			{[]string{"verify", "--channel", "JOBA", "--endpoint", "fetchCouponCode", "--times", "0"}, true},
			{[]string{"story", "apply", "uat-down", "--channel", "JOBA"}, true},
			{[]string{"story", "clear", "--channel", "JOBA"}, true},
			{[]string{"fault", "add", "--id", "B1", "--endpoint", "fetchCouponCode", "--kind", "internal-error", "--channel", "JOBB"}, false},
			{[]string{"verify", "--channel", "JOBB", "--endpoint", "fetchCouponCode", "--times", "0"}, false},
			{[]string{"story", "apply", "uat-down", "--channel", "JOBB"}, false},
			{[]string{"fault", "ls"}, false},
			{[]string{"channel", "add", "JOBC", "--like", "DEMOBANK"}, false},
		} {
			out, code := as(tok, tc.args...)
			if (code == 0) != tc.ok || !tc.ok && !strings.Contains(out, "channel JOBA alone") {
				t.Errorf("%s: JOBA's token: rewardsim %s: exit %d\n%s", when, strings.Join(tc.args, " "), code, out)
			}
		}
		if out, code := as("BOX", "verify", "--channel", "JOBB", "--endpoint", "fetchCouponCode", "--times", "0"); code != 0 {
			t.Errorf("%s: the box token on JOBB: exit %d\n%s", when, code, out)
		}
	}
	check("first run")
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	cmd, urls = startServe(t, bin, data, serve...)
	check("after a restart")
}

// Issue 50, item 9, on a real `rewardsim serve`: after a card was listed
// and no trackLink fired, `rewardsim report` warns (TRK-1) and names,
// among what it cannot check, whether the app acts on a webhook push;
// `report --no-cards-rendered` (a back end that renders no cards) does
// not warn and says the rule was not checked.
func TestServe_reportNoCardsRendered(t *testing.T) {
	bin := issue20Binary(t)
	cmd, urls := startServe(t, bin, t.TempDir())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	ctx, c := context.Background(), demoPublisher(t, urls["all"])
	ref, err := c.ReferenceToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"channelName": "DEMOBANK", "virtualId": "VU-REP", "triggerEventType": "UPI", "extTransactionId": "TX-REP",
		"amount": 250.5, "dateandtime": "15012026100000"}
	if _, ans, err := c.GetReward(ctx, ref.ReferenceKey, body); err != nil || len(ans.Rewards) != 1 {
		t.Fatalf("GetReward: %v %+v", err, ans)
	}
	env := []string{"REWARDSIM_CONTROL_URL=" + urls["control"]}
	for _, tc := range []struct {
		args        []string
		warns, says string
	}{
		{[]string{"report", "--fail-on", "none"}, "warning TRK-1", "acts on a coupon-status webhook push"},
		{[]string{"report", "--fail-on", "none", "--no-cards-rendered"}, "", "not checked: tracklink-never-fired: the service renders no cards"},
	} {
		out, code := cli(t, bin, env, tc.args...)
		if code != 0 || !strings.Contains(out, tc.says) || (tc.warns != "") != strings.Contains(out, "warning TRK-1") {
			t.Errorf("rewardsim %s: exit %d\n%s\nwant %q, TRK-1 warned: %v", strings.Join(tc.args, " "), code, out, tc.says, tc.warns != "")
		}
	}
	if st, out, _ := ctlCall(t, urls["control"], "GET", "/__sim/report?noCardsRendered=maybe", nil); st != http.StatusBadRequest || !strings.Contains(string(out), "noCardsRendered") {
		t.Errorf("noCardsRendered=maybe: HTTP %d %s, want 400 naming it", st, out)
	}
}
