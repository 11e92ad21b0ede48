package recfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/golden"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

// clause: SIM-4
// A recording diff pairs the app's requests by operation: an identical
// flow is no difference (new transaction ids and times are masked); a
// dropped call, another header and another body field each show once,
// and the other steps still pair.
func TestDiffRequests(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(golden.FixturesDir(), "recordings", "full-flow.json"))
	if err != nil {
		t.Fatal(err)
	}
	same := strings.ReplaceAll(strings.ReplaceAll(string(data), "TXN-FULL-1", "TXN-OTHER-9"), "TX-FULL-1", "TX-OTHER-9")
	if res, err := DiffFiles(data, []byte(same), nil); err != nil || !res.OK() || res.Paired != 13 {
		t.Fatalf("the same flow with new transaction ids: %v %+v", err, res)
	}
	old, _ := DiffFiles(data, data, nil)
	if !old.OK() {
		t.Fatal("a recording differs from itself")
	}
	rec, err := parseFixture(data)
	if err != nil {
		t.Fatal(err)
	}
	changed, _ := parseFixture(data)
	changed.Steps = append(changed.Steps[:7], changed.Steps[8:]...) // the second listing dropped (s8)
	changed.Steps[0].Header["X-App-Version"] = "2"
	changed.Steps[3].Body = []byte(strings.Replace(string(changed.Steps[3].Body), `"UPI"`, `"IMPS"`, 1))
	res := DiffRequests(rec, changed, nil)
	var got []string
	for _, d := range res.Differences {
		got = append(got, d.Step+" "+d.Where+" "+d.Note)
	}
	want := []string{"s1 request header X-App-Version ", "s4 request body /triggerEventType ", "s8 request sent in the old recording, not in the new"}
	if strings.Join(got, "|") != strings.Join(want, "|") || res.Paired != 12 {
		t.Fatalf("differences %q (paired %d), want %q (12)", got, res.Paired, want)
	}
}

func parseFixture(data []byte) (*Recording, error) {
	set, err := schema.Embedded()
	if err != nil {
		return nil, err
	}
	return Parse(data, set)
}

// A step that went to a URL an earlier answer handed out is named by where
// the URL came from (test reports show labels), not by its placeholder.
func TestLabel_namesAHandedOutURLByItsSource(t *testing.T) {
	for _, c := range []struct {
		st   Step
		want string
	}{
		{Step{Method: "GET", Path: "${s5.rewards.0.trackLink.0.url}"}, "GET the URL in s5's rewards/0/trackLink/0"},
		{Step{Method: "POST", Endpoint: "GetReward", Path: "/api/GetReward"}, "GetReward (POST /api/GetReward)"},
	} {
		if got := c.st.Label(); got != c.want {
			t.Errorf("Label() = %q, want %q", got, c.want)
		}
	}
}
