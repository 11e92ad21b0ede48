// Package golden compares wire shapes with the golden files under the
// module's fixtures/ folder; `go test -update` rewrites them instead. It is
// for rewardsim's own tests: the -update flag is registered only in the
// test binaries that import it.
package golden

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under fixtures/ instead of comparing")

// FixturesDir is the module's fixtures/ folder.
func FixturesDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "fixtures")
}

// Check compares got (indented as JSON when it is JSON) with
// fixtures/<name>; `go test -update` rewrites the file instead. Mask
// volatile values (tokens, signatures, times) before calling.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	var buf bytes.Buffer
	if json.Indent(&buf, got, "", "  ") == nil {
		got = append(buf.Bytes(), '\n')
	}
	path := filepath.Join(FixturesDir(), name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run go test -update to create it)", name, err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("golden %s differs (go test -update rewrites it)\n--- want\n%s\n--- got\n%s", name, want, got)
	}
}

// Encode is v as the simulator's serializer (httpx.JSONSerializer:
// encoding/json without HTML escaping) writes it, compact and without
// the trailing newline: what each answer written by hand is compared
// with.
func Encode(t testing.TB, v any) []byte {
	t.Helper()
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n"))
}

// Mask replaces the values of the named top-level JSON fields with
// "<masked>", so golden files pin shapes and not random values.
func Mask(t testing.TB, raw []byte, fields ...string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("mask: %v: %s", err, raw)
	}
	for _, f := range fields {
		if _, ok := m[f]; ok {
			m[f] = "<masked>"
		}
	}
	return append(Encode(t, m), '\n')
}
