package sim_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/golden"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/recordings"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// tokenFlow is the publisher flow the endpoints built so far allow:
// reference token, user tokens, SSO sessions, a bad signature and a call
// to an unavailable endpoint.
func tokenFlow(t *testing.T, c *publisher.Client) {
	t.Helper()
	ctx := context.Background()
	tokenFlowCorrect(t, c)
	// A wrong bName: a failure answer is part of the recording too.
	if _, err := c.CallSigned(ctx, c.RewardsURL+"/api/getSecuredReferenceToken", "", map[string]string{"bName": "demobank"}); err == nil {
		t.Fatal("a wrong bName was accepted")
	}
	res, err := c.Do(ctx, http.MethodPost, c.BankURL+"/api/RegisterEvent", nil, []byte(`{}`))
	if err != nil || res.StatusCode != http.StatusNotFound {
		t.Fatalf("RegisterEvent: %v %v", res, err)
	}
}

func exportSession(t *testing.T, s *simtest.Server, name string) []byte {
	t.Helper()
	res, err := http.Get(s.ControlURL + "/__sim/recording?name=" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("export: HTTP %d %v: %s", res.StatusCode, err, data)
	}
	return data
}

// replay replays data against s; a fresh s needs no channels of the
// replay's own, so unless o names a control API it replays shared.
func replay(t *testing.T, s *simtest.Server, data []byte, o recordings.ReplayOptions) *recordings.ReplayResult {
	t.Helper()
	o.Shared = o.Control == ""
	if o.Target == "" {
		o.Target = strings.Join([]string{s.RewardsURL, s.BankURL, s.HotdealsURL}, ",")
	}
	res, err := recordings.Replay(context.Background(), data, o)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	return res
}

// changedScenario is the default scenario with one value changed.
func changedScenario(t *testing.T, from, to string) simtest.Option {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "scenarios", "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), from) {
		t.Fatalf("default.yaml has no %q", from)
	}
	yaml := strings.Replace(string(data), from, to, 1)
	yaml = strings.ReplaceAll(yaml, "builtin:", "builtin:") // certificates stay embedded
	return simtest.WithScenarioYAML(yaml)
}

// clause: SIM-4
// Records a publisher flow, exports it (a golden session file under
// fixtures/recordings/), replays it against a fresh simulator with no
// difference, then against simulators whose scenario changed one value:
// each gives a readable, correct difference and a failing result.
func TestSession_SIM4_recordExportReplay(t *testing.T) {
	rec := simtest.New(t)
	tokenFlow(t, rec.Client)
	data := exportSession(t, rec, "token-flow")
	golden.Check(t, "recordings/token-flow.json", data)

	if res := replay(t, simtest.New(t), data, recordings.ReplayOptions{}); !res.OK() || res.Steps != 7 {
		t.Fatalf("replay against a fresh simulator: %d steps\n%s", res.Steps, res.Report)
	}
	// Split hosts: the same session, three targets.
	if res := replay(t, simtest.New(t, simtest.WithSplitHosts()), data, recordings.ReplayOptions{}); !res.OK() {
		t.Fatalf("replay against split hosts:\n%s", res.Report)
	}

	cases := []struct {
		name, from, to string
		want           []string
	}{
		{"service.channelId", "channelId: REWARDSIM", "channelId: OTHERSIM",
			[]string{"step s1 getSecuredReferenceToken (POST /api/getSecuredReferenceToken): body /CHANNELID", `recorded: "REWARDSIM"`, `replayed: "OTHERSIM"`}},
		{"tokens.expireDateFormat", "expireDateFormat: datetime-ms", "expireDateFormat: iso8601",
			[]string{"step s2 GetAuthToken (POST /api/GetAuthToken): bdata /expireDate", `recorded: "2026-01-15 10:30:00.000"`, `replayed: "2026-01-15T10:30:00+05:30"`,
				`compared after masking: "9999-99-99 99:99:99.999" vs "9999-99-99T99:99:99+99:99"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := replay(t, simtest.New(t, changedScenario(t, c.from, c.to)), data, recordings.ReplayOptions{})
			if res.OK() || res.Differences == 0 {
				t.Fatalf("a changed %s replayed with no difference", c.name)
			}
			for _, w := range c.want {
				if !strings.Contains(res.Report, w) {
					t.Errorf("diff lacks %q:\n%s", w, res.Report)
				}
			}
			// Masking the changed field by hand makes the replay pass again.
			field := map[string]string{"service.channelId": "CHANNELID", "tokens.expireDateFormat": "expireDate"}[c.name]
			if res := replay(t, simtest.New(t, changedScenario(t, c.from, c.to)), data, recordings.ReplayOptions{Masks: map[string]string{field: "ignore"}}); !res.OK() {
				t.Errorf("with %s ignored:\n%s", field, res.Report)
			}
		})
	}
}

// clause: SIM-4
// Every recording under fixtures/recordings/ is a regression test, replayed
// in-process as a user replays against a shared instance: all of them at
// once into one simulator, each into channels of its own, and then all of
// them again into the same simulator.
func TestRecording_SIM4_fixturesReplayCleanInParallelAndTwice(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(golden.FixturesDir(), "recordings", "*.json"))
	if len(files) == 0 {
		t.Fatal("no recording under fixtures/recordings/")
	}
	s := simtest.New(t)
	for round := 1; round <= 2; round++ {
		var wg sync.WaitGroup
		results := make([]*recordings.ReplayResult, len(files))
		errs := make([]error, len(files))
		for i, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = recordings.Replay(context.Background(), data, recordings.ReplayOptions{
					Target:  strings.Join([]string{s.RewardsURL, s.BankURL, s.HotdealsURL}, ","),
					Control: s.ControlURL,
				})
			}()
		}
		wg.Wait()
		for i, f := range files {
			switch {
			case errs[i] != nil:
				t.Errorf("round %d, %s: %v", round, filepath.Base(f), errs[i])
			case !results[i].OK():
				t.Errorf("round %d, %s:\n%s", round, filepath.Base(f), results[i].Report)
			case len(results[i].Channels) == 0 || results[i].Channels[0] == "DEMOBANK":
				t.Errorf("round %d, %s replayed into %v, not a channel of its own", round, filepath.Base(f), results[i].Channels)
			}
		}
	}
}

// proxied is a record proxy in front of a simulator with split hosts, and
// a client of that simulator that calls the proxy instead.
func proxied(t *testing.T) (*simtest.Server, *recordings.Recorder, publisher.Client, string) {
	t.Helper()
	upstream := simtest.New(t, simtest.WithSplitHosts())
	r, err := recordings.NewRecorder(recordings.RecorderOptions{Upstream: strings.Join([]string{upstream.RewardsURL, upstream.BankURL, upstream.HotdealsURL}, ","), Clock: upstream.Clock})
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewServer(r)
	t.Cleanup(proxy.Close)
	c := *upstream.Client
	c.RewardsURL, c.BankURL, c.HotdealsURL = proxy.URL, proxy.URL, proxy.URL
	return upstream, r, c, proxy.URL
}

// clause: SIM-4
// The record proxy captures a flow against a second simulator acting as
// the upstream, and the captured session replays cleanly.
func TestRecord_SIM4_proxyCapturesAFlowThatReplaysClean(t *testing.T) {
	upstream, r, c, _ := proxied(t)
	tokenFlow(t, &c)
	if r.Len() != 7 {
		t.Fatalf("recorded %d exchanges, want 7", r.Len())
	}
	data, err := r.Recording("proxied", "")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Steps []struct{ Host, Endpoint string }
	}
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.Steps) != 7 || doc.Steps[2].Host != "bank" {
		t.Fatalf("session: %v %+v", err, doc.Steps)
	}
	if res := replay(t, simtest.New(t), data, recordings.ReplayOptions{}); !res.OK() {
		t.Errorf("replaying the proxied session:\n%s", res.Report)
	}
	// The upstream journaled the same exchanges.
	if p := journal(t, upstream, ""); len(p.Entries) != 7 {
		t.Errorf("upstream journal holds %d entries, want 7", len(p.Entries))
	}
}
