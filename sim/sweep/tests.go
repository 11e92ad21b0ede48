package sweep

import (
	"bufio"
	"encoding/xml"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Tests are a run's tests, as its JUnit XML or TAP reports tell them.
type Tests struct {
	// Ran counts the tests that ran (skipped ones not).
	Ran int `json:"ran"`
	// Failed are those that failed or errored, in report order.
	Failed []FailedTest `json:"failed"`
	// names are every test that ran, for Report.Strict.
	names []string
}

// StrictTest is a test that failed under nearly every fault that
// reached its run once: it asserts exact calls or answers, so its
// failure alone does not say the service broke.
type StrictTest struct {
	Name   string `json:"name"`
	Failed int    `json:"failed"` // rows it failed in
	Of     int    `json:"of"`     // rows it ran in whose fault fired, once
}

// Strict tests fail in at least strictShare of at least strictRows rows.
const (
	strictShare = 0.75
	strictRows  = 4
)

// strictTests finds the strict tests of the rows and marks their
// failures. Only rows whose fault fired once count (--when first): a
// service may well get past one failure, so a test failing there nearly
// always asserts how, while under a fault on every call most tests of
// the endpoint should fail.
func strictTests(rows []Result) []StrictTest {
	failed, ran := map[string]int{}, map[string]int{}
	var order []string
	for _, r := range rows {
		if r.Tests == nil || r.Fired == 0 || r.When != First {
			continue
		}
		for _, n := range r.Tests.names {
			if ran[n] == 0 {
				order = append(order, n)
			}
			ran[n]++
		}
		for _, f := range r.Tests.Failed {
			failed[f.Name]++
		}
	}
	out := []StrictTest{}
	strict := map[string]bool{}
	for _, n := range order {
		if ran[n] >= strictRows && float64(failed[n]) >= strictShare*float64(ran[n]) {
			out = append(out, StrictTest{Name: n, Failed: failed[n], Of: ran[n]})
			strict[n] = true
		}
	}
	for _, r := range rows {
		if r.Tests == nil {
			continue
		}
		for i, f := range r.Tests.Failed {
			r.Tests.Failed[i].Strict = strict[f.Name]
		}
	}
	return out
}

// FailedTest is one test that failed in a run.
type FailedTest struct {
	Name string `json:"name"`
	// Report is the report that says so, a path under --out (output.txt
	// for TAP read from the command's output).
	Report string `json:"report,omitempty"`
	// Strict: this test fails under nearly every fault that reaches it
	// (Report.Strict), so its failure says little about the service.
	Strict bool `json:"strict,omitempty"`
}

// testCase is one test of a report.
type testCase struct {
	name            string
	failed, skipped bool
}

// parseJUnit reads a JUnit XML report (Surefire, Gradle,
// junit-platform-console's legacy XML, node:test's junit reporter):
// every testcase, failed when it holds a failure or an error, named
// classname.name (name alone when classname is empty or node's "test").
func parseJUnit(r io.Reader) ([]testCase, error) {
	d := xml.NewDecoder(r)
	var out []testCase
	var cur *testCase
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return out, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "testcase":
				var name, class string
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "name":
						name = a.Value
					case "classname":
						class = a.Value
					}
				}
				if class != "" && class != "test" {
					name = class + "." + name
				}
				out = append(out, testCase{name: name})
				cur = &out[len(out)-1]
			case "failure", "error":
				if cur != nil {
					cur.failed = true
				}
			case "skipped":
				if cur != nil {
					cur.skipped = true
				}
			}
		case xml.EndElement:
			if t.Name.Local == "testcase" {
				cur = nil
			}
		}
	}
	return out, nil
}

var (
	tapPoint    = regexp.MustCompile(`^(\s*)(not ok|ok)\b\s*\d*\s*(?:- )?(.*?)(\s+#\s*(?i:skip|todo)\b.*)?$`)
	tapSubtest  = regexp.MustCompile(`^(\s*)# Subtest: (.*)$`)
	tapLocation = regexp.MustCompile(`^\s*location: '?([^':]+)`)
)

// parseTAP reads TAP (node --test's tap reporter; plain TAP 13/14):
// every test point without test points under it (subtests are indented
// and come before their parent), named by its parents' "# Subtest:" names
// and its own, joined by " > ", after its file's base name when its
// YAML block gives a location.
func parseTAP(text string) []testCase {
	var out []testCase
	var path []string // subtest names by indent level
	hadChild := map[int]bool{}
	last := -1 // the last test point, for its YAML block's location
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := tapSubtest.FindStringSubmatch(line); m != nil {
			level := len(m[1]) / 4
			path = append(path[:min(level, len(path))], m[2])
			continue
		}
		if m := tapLocation.FindStringSubmatch(line); m != nil && last >= 0 && !strings.Contains(out[last].name, ": ") {
			out[last].name = filepath.Base(m[1]) + ": " + out[last].name
			continue
		}
		m := tapPoint.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		level := len(m[1]) / 4
		parent := hadChild[level+1]
		for l := range hadChild {
			if l > level {
				delete(hadChild, l)
			}
		}
		hadChild[level] = true
		if parent {
			last = -1
			continue
		}
		name := m[3]
		if level < len(path) {
			name = strings.Join(append(slices.Clone(path[:level]), m[3]), " > ")
		}
		out = append(out, testCase{name: name, failed: m[2] == "not ok" && m[4] == "", skipped: m[4] != ""})
		last = len(out) - 1
	}
	return out
}

// readTests reads the tests of a run: every *.xml (JUnit) and *.tap file
// under dir (REWARDSIM_SWEEP_REPORTS), every file of glob written since
// the run started (--reports), else TAP in the command's output. rel
// names a report as the result links it (under --out). ok is false when
// none was found.
func readTests(dir, glob string, since time.Time, output []byte, rel func(path string) string) (t Tests, ok bool) {
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".xml") || strings.HasSuffix(p, ".tap")) {
			files = append(files, p)
		}
		return nil
	})
	if glob != "" {
		matches, _ := filepath.Glob(glob)
		for _, p := range matches {
			if st, err := os.Stat(p); err == nil && !st.ModTime().Before(since) {
				files = append(files, p)
			}
		}
	}
	t.Failed = []FailedTest{}
	add := func(cases []testCase, report string) {
		for _, c := range cases {
			if !c.skipped {
				t.Ran++
				t.names = append(t.names, c.name)
			}
			if c.failed {
				t.Failed = append(t.Failed, FailedTest{Name: c.name, Report: report})
			}
		}
	}
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		if strings.HasSuffix(p, ".tap") {
			raw, _ := io.ReadAll(f)
			add(parseTAP(string(raw)), rel(p))
		} else if cases, err := parseJUnit(f); err == nil || len(cases) > 0 {
			add(cases, rel(p))
		}
		f.Close()
	}
	if len(files) == 0 {
		text := string(output)
		if i := strings.Index(text, "TAP version "); i >= 0 {
			add(parseTAP(text[i:]), rel(""))
			return t, true
		}
	}
	return t, len(files) > 0
}
