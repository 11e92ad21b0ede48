package sim_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/golden"
	"github.com/rewardsim/rewardsim/sim/recordings"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: SIM-4
// Replay reads a --scenario overlay as upload and validate do: one that
// says `extends: default` and restates no channel replays the fixture
// clean into a copy of the merged scenario (it was refused, "lists no
// channels to copy"); one that extends a scenario loaded on the target
// finds it there, and one that changes an inherited value shows as a
// difference.
func TestReplay_SIM4_readsAnOverlayScenarioAsUploadDoes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(golden.FixturesDir(), "recordings", "full-flow.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := simtest.New(t)
	run := func(yml string, base func(string) ([]byte, bool)) *recordings.ReplayResult {
		t.Helper()
		res, err := recordings.Replay(context.Background(), data, recordings.ReplayOptions{
			Target: strings.Join([]string{s.RewardsURL, s.BankURL, s.HotdealsURL}, ","), Control: s.ControlURL,
			Scenario: []byte(yml), ScenarioBase: base,
		})
		if err != nil {
			t.Fatalf("replay with %q: %v", yml, err)
		}
		return res
	}
	if res := run("extends: default\nfaults: []\n", nil); !res.OK() {
		t.Errorf("an overlay of default that changes nothing the flow sees:\n%s", res.Report)
	}
	// A base found beside the overlay (the CLI's --scenario folder).
	def, _ := os.ReadFile(filepath.Join(golden.FixturesDir(), "..", "scenarios", "default.yaml"))
	changed := strings.Replace(string(def), "offerTitle: 50% off your next coffee", "offerTitle: 40% off your next coffee", 1)
	sibling := func(name string) ([]byte, bool) { return []byte(changed), name == "mybase" }
	if res := run("extends: mybase\n", sibling); res.OK() || !strings.Contains(res.Report, "offerTitle") {
		t.Errorf("an overlay of a changed base shows no offerTitle difference:\n%s", res.Report)
	}
	// A base the target holds.
	ctlOK(t, s, 201, "POST", "/__sim/scenarios?name=loaded.yaml", strings.Replace(changed, "name: default", "name: loaded", 1))
	if res := run("extends: loaded\n", nil); res.OK() || !strings.Contains(res.Report, "offerTitle") {
		t.Errorf("an overlay of the target's loaded scenario shows no offerTitle difference:\n%s", res.Report)
	}
}
