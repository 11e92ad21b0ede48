package recfile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
)

// answerSchemas are the schemas of every answer the contract table names.
func answerSchemas() []string {
	var roots []string
	for _, op := range contract.Ops {
		for _, n := range []string{op.Response, op.ResponseBDATA} {
			if n != "" && !slices.Contains(roots, n) {
				roots = append(roots, n)
			}
		}
	}
	return roots
}

// volatile is what a replay masks by default.
func volatile(t testing.TB) map[string]MaskKind {
	t.Helper()
	v, err := VolatileFields(schemas.FS, answerSchemas())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// timeLike names a field that holds a time by the words the contract
// uses for them.
var timeLike = regexp.MustCompile(`(?i)(date|time|validity|expire|valid_(from|to)|At$)`)

// clause: SIM-4
// Every field of every answer schema whose name says it is a time is
// masked as one because its schema (format or pattern) says so; no
// hand-kept list decides. A new time field without a format fails here.
func TestVolatileFields_SIM4_everyTimeFieldOfEveryAnswerIsMasked(t *testing.T) {
	v := volatile(t)
	names := map[string]bool{}
	w := &schemaWalk{fsys: schemas.FS, docs: map[string]any{}, seen: map[string]bool{}, out: map[string]MaskKind{}}
	for _, r := range answerSchemas() {
		doc, err := w.doc(r + ".json")
		if err != nil {
			t.Fatal(err)
		}
		collectNames(doc, names)
	}
	for _, r := range w.docs {
		collectNames(r, names)
	}
	if len(names) < 40 {
		t.Fatalf("the walk found only %d field names: %v", len(names), names)
	}
	for n := range names {
		if timeLike.MatchString(n) && v[n] != MaskDigits {
			t.Errorf("answer field %s looks like a time but its schema does not mark it (mask %q); give it a format (date-time, x-time) or a date pattern", n, v[n])
		}
	}
	for n, want := range map[string]MaskKind{
		"referenceKey": MaskValue, "token": MaskValue, "sessionId": MaskValue, "SIGN": MaskValue, "BDATA": MaskValue,
		"rewardId": MaskValue, "coupon_code": MaskValue, "couponCode": MaskValue, "orderId": MaskValue,
		"trackLink": MaskURL, "clicktrack": MaskURL, "clickTrack": MaskURL, "url": MaskURL, "deepLink": MaskURL, "iconImage": MaskURL,
		"revealedDateTime": MaskDigits, "createdDateTime": MaskDigits, "expireDate": MaskDigits, "purchase_time": MaskDigits,
		"stock": "", "offerTitle": "", "extTransactionId": "", "status": "",
	} {
		if v[n] != want {
			t.Errorf("%s is masked %q, want %q", n, v[n], want)
		}
	}
}

// collectNames gathers every property name in a schema document.
func collectNames(v any, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		if props, ok := x["properties"].(map[string]any); ok {
			for k := range props {
				out[k] = true
			}
		}
		for _, c := range x {
			collectNames(c, out)
		}
	case []any:
		for _, c := range x {
			collectNames(c, out)
		}
	}
}

var dateValue = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}`)

// clause: SIM-4
// Every recorded answer value that reads as a date sits under a field the
// default masks treat as a time: the fixtures replay on any clock.
func TestVolatileFields_SIM4_recordedDatesAreMasked(t *testing.T) {
	v := volatile(t)
	files, _ := filepath.Glob("../../../fixtures/recordings/*.json")
	if len(files) == 0 {
		t.Fatal("no recordings under fixtures/recordings")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := Parse(data, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range rec.Steps {
			for _, raw := range []json.RawMessage{st.Expect.Body, st.Expect.BDATA} {
				d, ok := Decode(raw)
				if !ok {
					continue
				}
				Leaves(d, "", func(ptr, key string, val any) {
					if s, ok := val.(string); ok && dateValue.MatchString(s) && v[key] != MaskDigits {
						t.Errorf("%s step %s %s = %q escapes the time masks", f, st.ID, ptr, s)
					}
				})
			}
		}
	}
	if !strings.Contains(MaskList(v), "revealedDateTime=digits") {
		t.Errorf("revealedDateTime (the field of issue 12) is not masked: %s", MaskList(v))
	}
}
