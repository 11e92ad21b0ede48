package replay

import (
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/recfile"
)

// clause: SIM-4
// Issue 24: a control step the control API refuses shows the control
// API's error text beside the status (only a control step's status is
// compared, so its body would otherwise never show); a public step's
// status difference carries no such note.
func TestCompare_controlStepShowsTheControlAPIsError(t *testing.T) {
	st := &recfile.Step{ID: "s9", Host: recfile.HostControl, Method: "POST", Path: "/__sim/webhooks", Expect: recfile.Expect{Status: 201}}
	a := answer{status: 400, body: []byte(`{"error":"channel DEMOBANK has no webhookUrl: register one (webhookUrl) or pass url"}`)}
	ds := compare(st, a, nil)
	if len(ds) != 1 || ds[0].Where != "status" || !strings.Contains(ds[0].String(), "the control API said: channel DEMOBANK has no webhookUrl") {
		t.Fatalf("differences %v", ds)
	}
	st.Host = "rewards"
	if ds := compare(st, a, nil); len(ds) != 1 || ds[0].Note != "" {
		t.Fatalf("a public step: %v", ds)
	}
}
