package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// controlCall is a curl to the control API with the test token.
func controlCall(t *testing.T, method, url, contentType, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer tk")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(data)
}

// clause: SIM-4, SIM-6, REV-2
// Issue 24's done-when for replay and the report, through a real
// `rewardsim serve` and the real CLI: two files holding one recording replay clean with --parallel 2
// into two copies whose names -v prints; a recording made against an
// uploaded scenario names it (name and hash) and replays against the
// target's copy; where the target does not hold it, replay refuses naming
// the scenario and --scenario; a fault on the recorded channel makes the
// replay fail, reported before the first step, and so does another
// scenario active for the recorded channel; JUnit classnames do not end
// in .json and test names are the files (--junit-steps: a case per step);
// a second reveal fails the default `report --fail-on error`.
func TestReplayCmd_SIM4_isolationAndWhatWasRecorded(t *testing.T) {
	bin := buildBinary(t)
	srv, urls := startServe(t, bin, t.TempDir(), "--control-token", "tk")
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	target, control := urls["all"], urls["control"]
	env := []string{"REWARDSIM_CONTROL_URL=" + control, "REWARDSIM_CONTROL_TOKEN=tk"}
	dir := t.TempDir()

	// Two copies of one recording, in parallel.
	fixture, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "recordings", "full-flow.json"))
	if err != nil {
		t.Fatal(err)
	}
	twins := filepath.Join(dir, "twins")
	for _, n := range []string{"a.json", "b.json"} {
		if err := writeFile(filepath.Join(twins, n), fixture); err != nil {
			t.Fatal(err)
		}
	}
	junit := filepath.Join(dir, "twins.xml")
	out, code := cli(t, bin, env, "replay", twins, "--target", target, "--parallel", "2", "-v", "--junit", junit)
	copies := regexp.MustCompile(`into (replay-RP[0-9a-f]{8}-\S+), a copy of`).FindAllStringSubmatch(out, -1)
	if code != 0 || !strings.Contains(out, "2 recording(s), 2 passed, 0 failed") || len(copies) != 2 || copies[0][1] == copies[1][1] {
		t.Fatalf("two copies of one recording: exit %d, copies %v\n%s", code, copies, out)
	}
	data, _ := os.ReadFile(junit)
	var doc struct {
		Cases []struct {
			Name  string `xml:"name,attr"`
			Class string `xml:"classname,attr"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil || len(doc.Cases) != 2 {
		t.Fatalf("JUnit: %v\n%s", err, data)
	}
	for _, c := range doc.Cases {
		if strings.HasSuffix(c.Class, ".json") || strings.Contains(c.Class, "/") || (c.Name != "a.json" && c.Name != "b.json") {
			t.Errorf("JUnit case %q classname %q: want the file as the name and no .json or path in the classname", c.Name, c.Class)
		}
	}

	// A recording made against an uploaded scenario names it.
	def, err := os.ReadFile(filepath.Join("..", "..", "scenarios", "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	custom := regexp.MustCompile(`(?m)^name: .*$`).ReplaceAll(def, []byte("name: qa-custom"))
	if st, body := controlCall(t, http.MethodPost, control+"/__sim/scenarios?name=qa-custom.yaml&activate=true&channel=DEMOBANK", "application/yaml", string(custom)); st != http.StatusCreated {
		t.Fatalf("upload: %d %s", st, body)
	}
	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	key, _ := publisher.ParsePrivateKeyPEM(keyPEM)
	certPEM, _ := fs.ReadFile(certs.FS, certs.ServiceCert)
	servicePub, _ := publisher.ParsePublicKeyPEM(certPEM)
	liveFlow(t, &publisher.Client{HTTP: http.DefaultClient, RewardsURL: target, BankURL: target, HotdealsURL: target,
		ChannelID: "DEMOBANK", Channel: "DEMOBANK", Key: key, ServiceKey: servicePub, AppKey: "DEMOAPPKEY", SecKey: "DEMOSECKEY"})
	rec := filepath.Join(dir, "custom.json")
	if out, code := cli(t, bin, env, "recording", "export", "--channel", "DEMOBANK", "--out", rec); code != 0 {
		t.Fatalf("export: exit %d\n%s", code, out)
	}
	var exported struct {
		Against struct {
			Scenario, SHA256 string
			Channels         []string
		}
	}
	data, _ = os.ReadFile(rec)
	if err := json.Unmarshal(data, &exported); err != nil || exported.Against.Scenario != "qa-custom" || len(exported.Against.SHA256) != 64 {
		t.Fatalf("the recording does not name its scenario: %+v %v", exported.Against, err)
	}
	out, code = cli(t, bin, env, "replay", rec, "--target", target, "-v")
	if code != 0 || !strings.Contains(out, `a copy of scenario "qa-custom"`) || !strings.Contains(out, "no difference") {
		t.Fatalf("replay against the uploaded scenario: exit %d\n%s", code, out)
	}

	// A fault on the recorded channel: the replay fails, and says why
	// before the first step.
	st, body := controlCall(t, http.MethodPost, control+"/__sim/faults", "application/json", `{"endpoint":"GetReward","channel":"DEMOBANK","action":{"kind":"not-eligible"}}`)
	if st != http.StatusCreated {
		t.Fatalf("fault: %d %s", st, body)
	}
	out, code = cli(t, bin, env, "replay", rec, "--target", target, "-v")
	before, _, _ := strings.Cut(out, ": step s")
	if code != 1 || !strings.Contains(before, "DIFFERENT TARGET: the target has fault rule") || !strings.Contains(out, "GetReward") || !strings.Contains(out, "0 passed, 1 failed") {
		t.Fatalf("a fault on the recorded channel: exit %d\n%s", code, out)
	}
	// With --junit-steps: a case per step, the faulted GetReward failing,
	// and one for the target.
	junit = filepath.Join(dir, "steps.xml")
	if _, code := cli(t, bin, env, "replay", rec, "--target", target, "--junit", junit, "--junit-steps"); code != 1 {
		t.Fatalf("--junit-steps: exit %d", code)
	}
	data, _ = os.ReadFile(junit)
	var steps struct {
		Cases []struct {
			Name    string    `xml:"name,attr"`
			Class   string    `xml:"classname,attr"`
			Failure *struct{} `xml:"failure"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(data, &steps); err != nil || len(steps.Cases) < 5 {
		t.Fatalf("--junit-steps: %v\n%s", err, data)
	}
	for _, c := range steps.Cases {
		if strings.Contains(c.Name, "${") {
			t.Errorf("step case %q names a placeholder, not where the URL came from", c.Name)
		}
		if !strings.HasPrefix(c.Class, "replay.") || !strings.HasSuffix(c.Class, ".custom") {
			t.Errorf("step case %q classname %q", c.Name, c.Class)
		}
		if c.Failure != nil && c.Name != "target" && !strings.Contains(c.Name, "GetReward") && !strings.Contains(c.Name, "FetchRewardInfo") && !strings.Contains(c.Name, "GetAllScratchCardsByUserId") {
			t.Errorf("step case %q failed; only the target and the steps after the faulted GetReward may", c.Name)
		}
	}
	if !strings.Contains(string(data), `name="target"`) || !strings.Contains(string(data), "GetReward (POST /api/GetReward)") {
		t.Errorf("--junit-steps cases:\n%s", data)
	}

	// The replay's copy of the rule went with it.
	if _, list := controlCall(t, http.MethodGet, control+"/__sim/faults", "", ""); strings.Count(list, `"endpoint"`) != 1 {
		t.Errorf("fault rules left behind: %s", list)
	}
	controlCall(t, http.MethodDelete, control+"/__sim/faults", "", "")

	// Another scenario active for the recorded channel: reported, and failing.
	if st, body := controlCall(t, http.MethodPost, control+"/__sim/scenarios/default/activate", "application/json", `{"channel":"DEMOBANK"}`); st != http.StatusOK {
		t.Fatalf("activate: %d %s", st, body)
	}
	out, code = cli(t, bin, env, "replay", rec, "--target", target)
	if code != 1 || !strings.Contains(out, `DIFFERENT TARGET: the target runs scenario "default" for DEMOBANK; the recording was made against "qa-custom"`) {
		t.Fatalf("another scenario active: exit %d\n%s", code, out)
	}

	// A second reveal on the recorded channel: REV-2 is an error, so the
	// default `report --fail-on error` fails, with the clause, the
	// example and the advice.
	pub := &publisher.Client{HTTP: http.DefaultClient, RewardsURL: target, BankURL: target, HotdealsURL: target,
		ChannelID: "DEMOBANK", Channel: "DEMOBANK", Key: key, ServiceKey: servicePub, AppKey: "DEMOAPPKEY", SecKey: "DEMOSECKEY"}
	ut, err := pub.UserToken(context.Background(), "VU-1")
	if err != nil {
		t.Fatal(err)
	}
	_, list, err := pub.ListCards(context.Background(), ut.Token, "")
	if err != nil || len(list.Rewards) == 0 {
		t.Fatalf("listing: %v", err)
	}
	_, _, _ = pub.FetchRewardInfo(context.Background(), ut.Token, "VU-1", list.Rewards[0].RewardID)
	out, code = cli(t, bin, env, "report", "--channel", "DEMOBANK")
	if code != 1 || !strings.Contains(out, "error   REV-2") || !strings.Contains(out, "advice: Reveal a card once") {
		t.Fatalf("report after a second reveal: exit %d\n%s", code, out)
	}

	// A target that does not hold the recorded scenario: refused, naming it.
	other, otherURLs := startServe(t, bin, t.TempDir())
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
	out, code = cli(t, bin, nil, "replay", rec, "--target", otherURLs["all"], "--control", otherURLs["control"])
	if code != 1 || !strings.Contains(out, `scenario "qa-custom"`) || !strings.Contains(out, "--scenario") {
		t.Fatalf("unknown scenario: exit %d\n%s", code, out)
	}
	// ... and replays with the file given.
	scen := filepath.Join(dir, "qa-custom.yaml")
	_ = os.WriteFile(scen, custom, 0o644)
	out, code = cli(t, bin, nil, "replay", rec, "--target", otherURLs["all"], "--control", otherURLs["control"], "--scenario", scen)
	if code != 0 || !bytes.Contains([]byte(out), []byte("no difference")) {
		t.Fatalf("unknown scenario, --scenario given: exit %d\n%s", code, out)
	}
}
