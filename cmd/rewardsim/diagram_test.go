package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// clause: SIM-4, SIM-6
// `rewardsim diagram FILE`, run as a user would (the built binary, no
// simulator running), writes the SVG sequence diagram of a recording: it
// parses as XML and lists every step in order with its recorded status.
// Several recordings go to a folder; a file that is no recording is an
// error naming the file and the problem.
func TestDiagramCommand(t *testing.T) {
	bin := buildBinary(t)
	fixture := filepath.Join("..", "..", "fixtures", "recordings", "full-flow.json")

	t.Run("one recording to standard output", func(t *testing.T) {
		data, err := os.ReadFile(fixture)
		if err != nil {
			t.Fatal(err)
		}
		var rec struct {
			Steps []struct {
				Endpoint, Method, Path string
				Expect                 struct{ Status int }
			}
		}
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatal(err)
		}
		var want []string
		for i, st := range rec.Steps {
			label := st.Endpoint
			if label == "" {
				label = st.Method + " " + st.Path
			}
			want = append(want, fmt.Sprintf("#%d %s %d", i+1, label, st.Expect.Status))
		}
		out, code := cli(t, bin, nil, "diagram", fixture)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, out)
		}
		var doc struct {
			Groups []struct {
				Class  string `xml:"class,attr"`
				Seq    string `xml:"data-seq,attr"`
				Label  string `xml:"data-label,attr"`
				Status string `xml:"data-status,attr"`
			} `xml:"g"`
		}
		if err := xml.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("the output is not XML: %v\n%s", err, out)
		}
		var got []string
		for _, g := range doc.Groups {
			if g.Class == "call" {
				got = append(got, fmt.Sprintf("#%s %s %s", g.Seq, g.Label, g.Status))
			}
		}
		if len(want) != 13 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("diagram calls\n got %q\nwant %q", got, want)
		}
	})

	t.Run("several recordings to a folder", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "diagrams")
		if out, code := cli(t, bin, nil, "diagram", filepath.Dir(fixture)); code != 1 || !strings.Contains(out, "--out") {
			t.Errorf("several recordings to standard output: exit %d %s, want 1 asking for --out", code, out)
		}
		if out, code := cli(t, bin, nil, "diagram", filepath.Dir(fixture), "--out", dir); code != 0 {
			t.Fatalf("exit %d: %s", code, out)
		}
		for _, name := range []string{"full-flow.svg", "token-flow.svg"} {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil || xml.Unmarshal(data, new(struct{})) != nil || !strings.Contains(string(data), `class="call"`) {
				t.Errorf("%s: %v, want a diagram", name, err)
			}
		}
	})

	t.Run("a bad file", func(t *testing.T) {
		dir := t.TempDir()
		for _, tc := range []struct{ name, content, says string }{
			{"not-json.json", "steps: []\n", "not valid JSON"},
			{"no-answer.json", `{"version":1,"name":"x","steps":[{"id":"s1","method":"GET","path":"/x"}]}`, "expect: is required"},
			{"missing.json", "", "no such file"},
		} {
			path := filepath.Join(dir, tc.name)
			if tc.content != "" {
				if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out, code := cli(t, bin, nil, "diagram", path)
			if code != 1 || !strings.Contains(out, path) || !strings.Contains(out, tc.says) || strings.Contains(out, "<svg") {
				t.Errorf("%s: exit %d %q, want 1 naming the file and saying %q", tc.name, code, out, tc.says)
			}
		}
	})
}
