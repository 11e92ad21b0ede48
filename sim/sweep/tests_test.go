package sweep

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestReadTests reads reports the real runners wrote
// (testdata/reports/gen.sh): each failed test by name, skipped ones not
// counted as ran.
func TestReadTests(t *testing.T) {
	tap, err := os.ReadFile("testdata/reports/node.tap")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, file string
		output     []byte
		ran        int
		failed     []string
	}{
		{"junit-platform-console (Surefire's format)", "junit-console.xml", nil, 4, []string{"shop.ClaimTest.errors()", "shop.ClaimTest.countedExactly()"}},
		{"node:test junit reporter", "node-junit.xml", nil, 5, []string{"fails", "counted exactly"}},
		{"node:test tap reporter, a file", "node.tap", nil, 5, []string{"a.test.mjs: fails", "a.test.mjs: claims > counted exactly"}},
		{"node:test tap reporter, on the output", "", append([]byte("some log line\n"), tap...), 5, []string{"a.test.mjs: fails", "a.test.mjs: claims > counted exactly"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.file != "" {
				raw, err := os.ReadFile(filepath.Join("testdata/reports", c.file))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, c.file), raw, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, ok := readTests(dir, "", time.Time{}, c.output, filepath.Base)
			var names []string
			for _, f := range got.Failed {
				names = append(names, f.Name)
			}
			if !ok || got.Ran != c.ran || !slices.Equal(names, c.failed) {
				t.Fatalf("ok %v, ran %d, failed %q; want %d, %q", ok, got.Ran, names, c.ran, c.failed)
			}
		})
	}
	if _, ok := readTests(t.TempDir(), "", time.Time{}, []byte("PASS\n"), filepath.Base); ok {
		t.Error("tests found where no report was written")
	}
}

// TestStrictTests: a test failing in three quarters of the first rows
// that ran it (four at least) is strict; every rows do not count.
func TestStrictTests(t *testing.T) {
	row := func(when string, failed ...string) Result {
		tests := &Tests{names: []string{"counts", "claims"}}
		for _, f := range failed {
			tests.Failed = append(tests.Failed, FailedTest{Name: f})
		}
		return Result{Row: Row{When: when}, Fired: 1, Tests: tests}
	}
	for _, c := range []struct {
		name string
		rows []Result
		want []string
	}{
		{"fails in 3 of 4", []Result{row(First, "counts"), row(First, "counts"), row(First, "counts", "claims"), row(First)}, []string{"counts"}},
		{"fails in 2 of 4", []Result{row(First, "counts"), row(First, "counts"), row(First), row(First)}, nil},
		{"too few rows", []Result{row(First, "counts"), row(First, "counts"), row(First, "counts")}, nil},
		{"every rows only", []Result{row(Every, "counts"), row(Every, "counts"), row(Every, "counts"), row(Every, "counts")}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, s := range strictTests(c.rows) {
				got = append(got, s.Name)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("strict %v, want %v", got, c.want)
			}
			if len(c.want) > 0 && !c.rows[0].Tests.Failed[0].Strict {
				t.Error("a strict test's failure is not marked strict")
			}
		})
	}
}
