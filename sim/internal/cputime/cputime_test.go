package cputime

import (
	"testing"
	"time"
)

// Process grows by about the CPU a busy loop burns.
func TestProcess_counts(t *testing.T) {
	before := Process()
	if before <= 0 {
		t.Fatalf("Process() = %v before any work", before)
	}
	// Spin until 20 ms of CPU are counted, within a generous wall bound:
	// on a shared machine 50 ms of wall time held as little as 12 ms of CPU.
	x := 0
	deadline := time.Now().Add(10 * time.Second)
	for Process()-before < 20*time.Millisecond {
		if time.Now().After(deadline) {
			t.Fatalf("10 s of busy loop (%d turns) counted %v of CPU", x, Process()-before)
		}
		for range 100_000 {
			x++
		}
	}
}
