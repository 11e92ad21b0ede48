package replay

import (
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/recfile"
)

// A replayed answer with many fields the recording lacks (a --shared
// target's richer answer) is one difference naming them, not one per
// field; a few are still listed one by one. A status that differs shows
// the target's X-Rewardsim-Reason, which says why.
func TestCompare_collapsesManyAddedFieldsAndShowsTheReason(t *testing.T) {
	st := &recfile.Step{ID: "s1", Method: "POST", Path: "/x", Expect: recfile.Expect{Status: 200, Body: []byte(`{"a":1,"b":{"c":1}}`)}}
	many := answer{status: 200, header: http.Header{}, body: []byte(`{"a":1,"b":{"c":1,"d":1,"e":1,"f":1,"g":1}}`)}
	d := compare(st, many, nil)
	if len(d) != 1 || d[0].Where != "body /b" || !strings.Contains(d[0].Note, "4 fields not in the recorded answer: d, e, f, g") {
		t.Fatalf("many added fields: %+v", d)
	}
	few := answer{status: 200, header: http.Header{}, body: []byte(`{"a":1,"b":{"c":1,"d":1}}`)}
	if d := compare(st, few, nil); len(d) != 1 || d[0].Where != "body /b/d" {
		t.Fatalf("one added field: %+v", d)
	}
	refused := answer{status: 401, header: http.Header{"X-Rewardsim-Reason": {"token is unknown"}}, body: []byte(`{"a":1,"b":{"c":1}}`)}
	if d := compare(st, refused, nil); len(d) != 1 || !strings.Contains(d[0].Note, "the target's reason: token is unknown") {
		t.Fatalf("another status: %+v", d)
	}
}

// A recorded URL a file holds normalised (older recordings: host dropped,
// digit runs as 9) is said to be so, next to the replayed URL as sent.
func TestCompare_saysARecordedURLIsNormalised(t *testing.T) {
	st := &recfile.Step{ID: "s1", Method: "POST", Path: "/x", Expect: recfile.Expect{Status: 200, Body: []byte(`{"u":"<url>/c/9?vid=VU-Q9"}`)}}
	got := answer{status: 200, header: http.Header{}, body: []byte(`{"u":"http://h:1/d/1?vid=VU-Q1"}`)}
	d := compare(st, got, map[string]recfile.MaskKind{"u": recfile.MaskURL})
	if len(d) != 1 || !strings.Contains(d[0].Note, "normalised") || !strings.Contains(d[0].Got, "VU-Q1") {
		t.Fatalf("%+v", d)
	}
}
