package sim_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim"
)

// The sdk: key and switches.sdk are checked with file, line, path and reason.
//
// clause: SIM-1
// clause: SDK-1
// clause: SDK-3
func TestScenario_sdkProblemsLocated(t *testing.T) {
	base := cardScenario("") + `sdk:
  androidBridge: AppBridge
  partners: {DEMOBANK: Demo}
  popups:
    - {channel: DEMOBANK, campaign: C-UPI, minAmount: 100}
`
	cases := []struct{ name, old, new, want string }{
		{"bridge not an identifier", "androidBridge: AppBridge", "androidBridge: App-Bridge", "/sdk/androidBridge: is not a JavaScript identifier"},
		{"partner of no channel", "partners: {DEMOBANK: Demo}", "partners: {NOBANK: Demo}", `/sdk/partners/NOBANK: no channel is named "NOBANK"`},
		{"partner not a name", "partners: {DEMOBANK: Demo}", "partners: {DEMOBANK: De mo}", "/sdk/partners/DEMOBANK: is not usable"},
		{"popup of no campaign", "campaign: C-UPI, minAmount", "campaign: C-NONE, minAmount", `/sdk/popups/0/campaign: channel "DEMOBANK" has no campaign "C-NONE"`},
		{"popup campaign of another channel", "{channel: DEMOBANK, campaign: C-UPI, minAmount", "{channel: OTHERBANK, campaign: C-CAP, minAmount", "/sdk/popups/0/campaign"},
		{"popup negative amount", "C-UPI, minAmount: 100}", "C-UPI, minAmount: -1}", "/sdk/popups/0/minAmount"},
		{"unknown sdk key", "androidBridge: AppBridge", "androidBridge: AppBridge\n  iosBridge: X", "/sdk/iosBridge"},
		{"unknown emptySessionId", "cards: {}", "cards: {}\n  sdk: {emptySessionId: maybe}", "/switches/sdk/emptySessionId"},
		{"unknown missCallback", "cards: {}", "cards: {}\n  sdk: {missCallback: sometimes}", "/switches/sdk/missCallback"},
	}
	dir := t.TempDir()
	for _, tc := range cases {
		if !strings.Contains(base, tc.old) {
			t.Fatalf("%s: the base scenario has no %q", tc.name, tc.old)
		}
		path := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(path, []byte(strings.Replace(base, tc.old, tc.new, 1)), 0o600); err != nil {
			t.Fatal(err)
		}
		err := sim.ValidateScenario(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path+":") {
			t.Errorf("%s: %v, want a located problem containing %q", tc.name, err, tc.want)
		}
	}
	path := filepath.Join(dir, "ok.yaml")
	_ = os.WriteFile(path, []byte(base), 0o600)
	if err := sim.ValidateScenario(path); err != nil {
		t.Errorf("base scenario: %v", err)
	}
}
