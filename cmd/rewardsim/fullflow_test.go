package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: SIM-4
// `rewardsim replay` of the recorded complete publisher flow
// (fixtures/sessions/full-flow.json): exit 0 against a fresh simulator,
// non-zero with the changed field named against a changed scenario.
func TestReplayCmd_SIM4_fullFlowFixture(t *testing.T) {
	file := filepath.Join("..", "..", "fixtures", "sessions", "full-flow.json")
	fresh := simtest.New(t)
	if out, err := run(t, "replay", file, "--target", fresh.RewardsURL); err != nil || !strings.Contains(out, "13 steps, no difference") {
		t.Fatalf("replay against a fresh simulator: %v\n%s", err, out)
	}
	def, err := os.ReadFile(filepath.Join("..", "..", "scenarios", "default.yaml"))
	if err != nil || !strings.Contains(string(def), "channelId: REWARDSIM") {
		t.Fatalf("default.yaml: %v", err)
	}
	changed := simtest.New(t, simtest.WithScenarioYAML(strings.Replace(string(def), "channelId: REWARDSIM", "channelId: OTHERSIM", 1)))
	out, err := run(t, "replay", file, "--target", changed.RewardsURL)
	if err == nil || !strings.Contains(out, "4 difference(s)") ||
		!strings.Contains(out, "step s7 FetchRewardInfo (POST /api/FetchRewardInfo): body /CHANNELID") || !strings.Contains(out, `replayed: "OTHERSIM"`) {
		t.Fatalf("replay against a changed service channelId: %v\n%s", err, out)
	}
}
