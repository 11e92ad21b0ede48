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
