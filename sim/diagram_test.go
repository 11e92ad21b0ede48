package sim_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/recordings"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// svgCall is one call group of a sequence diagram, read back from its
// data attributes.
type svgCall struct {
	Class  string `xml:"class,attr"`
	Seq    string `xml:"data-seq,attr"`
	To     string `xml:"data-to,attr"`
	Label  string `xml:"data-label,attr"`
	Status string `xml:"data-status,attr"`
	Fault  string `xml:"data-fault,attr"`
	Reason string `xml:"data-reason,attr"`
}

// diagramCalls parses an SVG diagram as XML and returns its calls as
// "seq label status lane" lines.
func diagramCalls(t *testing.T, svg []byte) []string {
	t.Helper()
	var doc struct {
		XMLName xml.Name  `xml:"svg"`
		Groups  []svgCall `xml:"g"`
	}
	if err := xml.Unmarshal(svg, &doc); err != nil {
		t.Fatalf("the diagram is not XML: %v\n%s", err, svg)
	}
	var out []string
	for _, g := range doc.Groups {
		if g.Class == "call" {
			out = append(out, fmt.Sprintf("%s %s %s %s fault=%s reason=%s", g.Seq, g.Label, g.Status, g.To, g.Fault, g.Reason))
		}
	}
	return out
}

// recordedSteps reads a recording file's steps the way a reader of
// schemas/recording.json would, as the lines diagramCalls returns.
func recordedSteps(t *testing.T, data []byte) []string {
	t.Helper()
	var rec struct {
		Steps []struct {
			Host, Endpoint, Method, Path string
			Expect                       struct {
				Status int
				Header map[string]string
			}
		}
	}
	decodeInto(t, data, &rec)
	var want []string
	for i, st := range rec.Steps {
		label := st.Endpoint
		if label == "" {
			label = st.Method + " " + st.Path
		}
		fault, reason := "", st.Expect.Header["X-Rewardsim-Reason"]
		if f, ok := strings.CutPrefix(reason, "injected fault: "); ok {
			fault, reason = f, ""
		}
		want = append(want, fmt.Sprintf("%d %s %d %s fault=%s reason=%s", i+1, label, st.Expect.Status, st.Host, fault, reason))
	}
	return want
}

// postDiagram sends body to POST /__sim/diagram.svg as contentType.
func postDiagram(t *testing.T, s *simtest.Server, contentType string, body []byte) (int, string, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", s.ControlURL+"/__sim/diagram.svg", bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 400 {
		if err := controlSchemas().ValidateJSON("control.error", out); err != nil {
			t.Errorf("HTTP %d answer outside control.error.json: %v: %s", res.StatusCode, err, out)
		}
	}
	return res.StatusCode, res.Header.Get("Content-Type"), out
}

// clause: SIM-4, SIM-6
// The sequence diagram of the recorded full flow, drawn from the file
// without replaying it (recordings.Diagram, and POST /__sim/diagram.svg
// on the control API), lists every step in order with its recorded
// status, in the lane of the host that served it.
func TestRecordingDiagram_fullFlowEveryStepInOrder(t *testing.T) {
	data, err := os.ReadFile("../fixtures/recordings/full-flow.json")
	if err != nil {
		t.Fatal(err)
	}
	want := recordedSteps(t, data)
	if len(want) != 13 {
		t.Fatalf("the fixture has %d steps, want the 13 of the full flow", len(want))
	}
	var svg bytes.Buffer
	if err := recordings.Diagram(data, &svg); err != nil {
		t.Fatal(err)
	}
	if got := diagramCalls(t, svg.Bytes()); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("diagram calls\n got %q\nwant %q", got, want)
	}
	if !strings.Contains(svg.String(), "<title>rewardsim recording full-flow (13 steps)</title>") {
		t.Error("the diagram's title does not name the recording")
	}

	s := simtest.New(t)
	st, ct, out := postDiagram(t, s, "application/json", data)
	if st != http.StatusOK || !strings.HasPrefix(ct, "image/svg+xml") {
		t.Fatalf("POST /__sim/diagram.svg: HTTP %d %s: %s", st, ct, out)
	}
	if !bytes.Equal(out, svg.Bytes()) {
		t.Error("the control API's diagram differs from recordings.Diagram's")
	}
}

// clause: SIM-4, SIM-6
// A recording exported after a fault fired shows the fault on that call.
func TestRecordingDiagram_faultAndReason(t *testing.T) {
	e := newCardEnv(t)
	ctlOK(t, e.s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{
		"id": "diagram-fault", "endpoint": "GetReward", "virtualId": "d-fault", "action": map[string]any{"kind": "internal-error"}})
	e.issue("d-ok", "UPI")
	if res, _, _ := e.s.Client.GetReward(e.ctx, e.refToken(e.s.Client), e.req("d-fault", "UPI")); res == nil || res.StatusCode != 500 {
		t.Fatalf("faulted GetReward: %+v", res)
	}
	st, rec := ctl(t, e.s, "GET", "/__sim/recording?name=faulted", nil)
	if st != http.StatusOK {
		t.Fatalf("recording: HTTP %d %s", st, rec)
	}
	want := recordedSteps(t, rec)
	st, _, svg := postDiagram(t, e.s, "application/json", rec)
	if st != http.StatusOK {
		t.Fatalf("POST /__sim/diagram.svg: HTTP %d %s", st, svg)
	}
	got := diagramCalls(t, svg)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("diagram calls\n got %q\nwant %q", got, want)
	}
	// A recording keeps the answer's reason header, which names the
	// fault's kind (the rule's id is the journal's alone).
	if last := got[len(got)-1]; !strings.Contains(last, "GetReward 500 rewards fault=internal-error") {
		t.Errorf("the faulted call reads %q, want GetReward 500 with fault internal-error", last)
	}
}

// clause: SIM-3
// A body that is no recording is refused in the control API's error
// shape with a 4xx that says why, never a 5xx or a picture.
func TestRecordingDiagram_badInput(t *testing.T) {
	s := simtest.New(t)
	for _, tc := range []struct {
		name, contentType string
		body              []byte
		status            int
		says              string
	}{
		{"not JSON", "application/json", []byte("not json"), 400, "not valid JSON"},
		{"empty", "application/json", nil, 400, "the body is empty"},
		{"no steps", "application/json", []byte(`{"version":1,"name":"x"}`), 400, "steps"},
		{"a step without its answer", "application/json", []byte(`{"version":1,"name":"x","steps":[{"id":"s1","method":"GET","path":"/x"}]}`), 400, "expect"},
		{"unsupported version", "application/json", []byte(`{"version":2,"name":"x","steps":[]}`), 400, "version"},
		{"YAML", "application/yaml", []byte("version: 1\n"), 415, "application/json"},
		{"too large", "application/json", bytes.Repeat([]byte(" "), 1<<20+1), 413, "body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, _, out := postDiagram(t, s, tc.contentType, tc.body)
			var e struct{ Error string }
			_ = json.Unmarshal(out, &e)
			if st != tc.status || !strings.Contains(e.Error, tc.says) {
				t.Errorf("HTTP %d %s, want %d saying %q", st, out, tc.status, tc.says)
			}
		})
	}
	if err := recordings.Diagram([]byte(`{"version":1}`), io.Discard); err == nil || !strings.Contains(err.Error(), "recording file") {
		t.Errorf("recordings.Diagram of a bad file: %v, want a recording-file error", err)
	}
}
