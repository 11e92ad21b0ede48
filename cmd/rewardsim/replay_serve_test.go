package main

import (
	"context"
	"encoding/xml"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// cli runs the built binary as a user does, with env added.
func cli(t *testing.T, bin string, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return string(out), code
}

// readJUnit parses a JUnit file into test case name -> failure text
// ("" for a pass).
func readJUnit(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil || len(doc.Suites) != 1 {
		t.Fatalf("JUnit XML: %v\n%s", err, data)
	}
	out := map[string]string{}
	for _, c := range doc.Suites[0].Cases {
		out[c.Name] = ""
		if c.Failure != nil {
			out[c.Name] = c.Failure.Message + "\n" + c.Failure.Text
		}
	}
	return out
}

// clause: SIM-4, SIM-6
// Issue 12's done-when, as a user runs it: a real `rewardsim serve` on the
// real clock with a control token; `rewardsim replay fixtures/recordings/`
// through the CLI (the token from the environment) exits 0, twice in a row
// and two recordings at once into the same instance, with a summary
// table and a JUnit file; a flow recorded live there (GetReward, reveal,
// listing, coupon claim), exported with `recording export`, replays clean
// into the same instance twice; a changed scenario value gives a readable
// diff, exit 1 and a failing JUnit case; `report --junit` has a case per
// rule.
func TestReplayCmd_SIM4_realServeOnTheRealClock(t *testing.T) {
	bin := buildBinary(t)
	srv, urls := startServe(t, bin, t.TempDir(), "--control-token", "tk")
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	target, control := urls["all"], urls["control"]
	env := []string{"REWARDSIM_CONTROL_URL=" + control, "REWARDSIM_CONTROL_TOKEN=tk"}
	dir := t.TempDir()
	fixturesDir := filepath.Join("..", "..", "fixtures", "recordings")

	for round := 1; round <= 2; round++ {
		junit := filepath.Join(dir, "replay.xml")
		out, code := cli(t, bin, env, "replay", fixturesDir, "--target", target, "--parallel", "2", "--junit", junit)
		if code != 0 || !strings.Contains(out, "full-flow: 13 steps, no difference") || !strings.Contains(out, "2 recording(s), 2 passed, 0 failed") {
			t.Fatalf("round %d: exit %d\n%s", round, code, out)
		}
		if cases := readJUnit(t, junit); len(cases) != 2 || cases["full-flow.json"] != "" || cases["token-flow.json"] != "" {
			t.Fatalf("round %d JUnit: %v", round, cases)
		}
	}

	// Without the token the control API refuses, and the command says so.
	if out, code := cli(t, bin, nil, "report", "--control", control); code == 0 || !strings.Contains(out, "HTTP 401") {
		t.Errorf("report without the token: exit %d\n%s", code, out)
	}

	// A flow recorded live on this instance.
	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	key, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	certPEM, _ := fs.ReadFile(certs.FS, certs.ServiceCert) // serve runs the embedded service key
	servicePub, err := publisher.ParsePublicKeyPEM(certPEM)
	if err != nil {
		t.Fatal(err)
	}
	liveFlow(t, &publisher.Client{HTTP: http.DefaultClient, RewardsURL: target, BankURL: target, HotdealsURL: target,
		ChannelID: "DEMOBANK", Channel: "DEMOBANK", Key: key, ServiceKey: servicePub, AppKey: "DEMOAPPKEY", SecKey: "DEMOSECKEY"})
	rec := filepath.Join(dir, "live.json")
	if out, code := cli(t, bin, env, "recording", "export", "--channel", "DEMOBANK", "--out", rec); code != 0 {
		t.Fatalf("recording export: exit %d\n%s", code, out)
	}
	if out, code := cli(t, bin, env, "session", "export", "--channel", "DEMOBANK"); code != 0 || !strings.Contains(out, `"name": "recording"`) {
		t.Fatalf("session export to standard output: exit %d\n%s", code, out)
	}
	for round := 1; round <= 2; round++ {
		out, code := cli(t, bin, env, "replay", rec, "--target", target, "-v")
		if code != 0 || !strings.Contains(out, "live: step s") || !strings.Contains(out, "no difference") {
			t.Fatalf("live flow, round %d: exit %d\n%s", round, code, out)
		}
	}

	// A changed scenario value: readable diff, exit 1, a failing case.
	def, err := os.ReadFile(filepath.Join("..", "..", "scenarios", "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	changed := filepath.Join(dir, "changed.yaml")
	if err := os.WriteFile(changed, []byte(strings.Replace(string(def), "offerTitle: 50% off your next coffee", "offerTitle: 40% off your next coffee", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	junit := filepath.Join(dir, "changed.xml")
	out, code := cli(t, bin, env, "replay", filepath.Join(fixturesDir, "full-flow.json"), "--target", target, "--scenario", changed, "--junit", junit)
	if code != 1 || !strings.Contains(out, "bdata /offerTitle") || !strings.Contains(out, `recorded: "50% off your next coffee"`) ||
		!strings.Contains(out, `replayed: "40% off your next coffee"`) || !strings.Contains(out, "0 passed, 1 failed") {
		t.Fatalf("changed scenario: exit %d\n%s", code, out)
	}
	if cases := readJUnit(t, junit); !strings.Contains(cases["full-flow.json"], "bdata /offerTitle") {
		t.Fatalf("changed scenario JUnit: %v", cases)
	}

	// report --junit: a case per rule checked.
	junit = filepath.Join(dir, "report.xml")
	if out, code := cli(t, bin, env, "report", "--junit", junit, "--fail-on", "none"); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, out)
	}
	if cases := readJUnit(t, junit); len(cases) < 10 || cases["CPN-4 retry-with-new-ext-transaction-id"] != "" {
		t.Fatalf("report JUnit: %v", cases)
	}
}

// liveFlow is a publisher's flow on the default scenario's DEMOBANK.
func liveFlow(t *testing.T, c *publisher.Client) {
	t.Helper()
	ctx := context.Background()
	ref, err := c.ReferenceToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	user, err := c.UserToken(ctx, "VU-1")
	if err != nil {
		t.Fatal(err)
	}
	amount := 250.5
	res, got, err := c.GetReward(ctx, ref.ReferenceKey, publisher.GetRewardRequest{
		ChannelName: "DEMOBANK", VirtualID: "VU-1", TriggerEventType: "UPI", ExtTransactionID: "TXN-LIVE-1", Amount: &amount, DateAndTime: "15012026100000",
	})
	if err != nil || !got.Status || len(got.Rewards) != 1 {
		t.Fatalf("GetReward: %v %s", err, res.Body)
	}
	if _, r, err := c.FetchRewardInfo(ctx, user.Token, "VU-1", got.Rewards[0].RewardID); err != nil || !r.Status {
		t.Fatalf("reveal: %v %+v", err, r)
	}
	if res, list, err := c.ListCards(ctx, user.Token, ""); err != nil || len(list.Rewards) != 1 {
		t.Fatalf("listing: %v %s", err, res.Body)
	}
	if _, err := c.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-1", ExtTransactionID: "TX-LIVE-1", CoinsUsed: "100"}); err != nil {
		t.Fatal(err)
	}
	if list, err := c.UserCoupons(ctx, "VU-1", "OFFER-DEMO"); err != nil || len(list) != 1 {
		t.Fatalf("getUserCoupons: %v %+v", err, list)
	}
}
