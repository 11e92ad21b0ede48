package main

import (
	"os"
	"os/exec"
	"regexp"
	"testing"
)

// clause: SIM-3, SIM-4
// Every sh block of docs/observability.md runs, in order, as written,
// against a real `rewardsim serve` (SIM and CONTROL its listeners).
func TestDocsObservabilityExamplesRun(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("the docs' examples use curl, which is not installed")
	}
	doc, err := os.ReadFile("../../docs/observability.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllSubmatch(doc, -1)
	if len(blocks) < 2 {
		t.Fatalf("found %d sh blocks in docs/observability.md", len(blocks))
	}
	bin := buildBinary(t)
	cmd, urls := startServe(t, bin, t.TempDir())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	dir := t.TempDir()
	for i, b := range blocks {
		sh := exec.Command("sh", "-e", "-c", string(b[1]))
		sh.Dir = dir
		sh.Env = append(os.Environ(), "SIM="+urls["all"], "CONTROL="+urls["control"])
		out, err := sh.CombinedOutput()
		if err != nil {
			t.Fatalf("block %d failed: %v\n%s\n--- output\n%s", i+1, err, b[1], out)
		}
	}
}
