// Package load tests make load's harness (.ci/load) in its A/B mode,
// -against, on which issues 53 and 54's "within 3% of today's (A/B in one
// run)" rests.
package load

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"rewardsim.invalid/ci-tools/internal/repo"
)

// An A/B of a binary against itself prints both binaries' figures and
// ratios near 1, for a throughput target and for start-up; the old one,
// whose serve lacks a flag the harness passes, is started without it.
func TestLoadAgainstItself(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "rewardsim")
	if err := repo.BuildHost(root, bin); err != nil {
		t.Fatal(err)
	}
	load := filepath.Join(dir, "load")
	build := exec.Command("go", "build", "-o", load, "./.ci/load")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./.ci/load: %v\n%s", err, out)
	}
	// An "older build": the same binary, whose help lists no
	// --debug-pprof and which refuses to start when given it.
	old := filepath.Join(dir, "old")
	script := "#!/bin/sh\nfor a; do [ \"$a\" = --debug-pprof ] && { echo 'unknown flag: --debug-pprof' >&2; exit 1; }; done\n" +
		"if [ \"$1 $2\" = 'serve --help' ]; then '" + bin + "' serve --help | grep -v -- --debug-pprof; exit 0; fi\n" +
		"exec '" + bin + "' \"$@\"\n"
	if err := os.WriteFile(old, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, load, "-bin", bin, "-against", old, "-certs", filepath.Join(root, "certs"),
		"-only", "start-up,GetReward-new-card", "-duration", "2s", "-stretches", "4", "-mixed", "0")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("load -against: %v\n%s", err, out)
	}
	text := string(out)
	t.Log(text)
	if !strings.Contains(text, old+": its serve has no --debug-pprof: left out for it") ||
		!strings.Contains(text, "flags left out for the old: --debug-pprof") {
		t.Errorf("the old binary's missing flag is not reported:\n%s", text)
	}
	if n := len(regexp.MustCompile(`(?m)^\s+each stretch, new/old req/s: (\d+/\d+ ?){4}$`).FindAllString(text, -1)); n != 1 {
		t.Errorf("%d lines of four stretches' new/old figures, want 1:\n%s", n, text)
	}
	for _, row := range []string{"GetReward-new-card, req/s", "start-up, ms"} {
		m := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(row) + ` \| [^|]+ \| [^|]+ \| ([0-9.]+)x \|`).FindStringSubmatch(text)
		if m == nil {
			t.Errorf("no A/B row %q:\n%s", row, text)
			continue
		}
		// The same binary: only the shared machine's noise between them.
		if r, _ := strconv.ParseFloat(m[1], 64); r < 0.5 || r > 2 {
			t.Errorf("%s: new/old %.3f, want near 1 (0.5 to 2):\n%s", row, r, text)
		}
	}
}
