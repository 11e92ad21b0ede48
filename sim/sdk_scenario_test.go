package sim_test

import (
	"testing"
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
	cases := []scenarioEdit{
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
	checkScenarioEdits(t, base, cases)
}
