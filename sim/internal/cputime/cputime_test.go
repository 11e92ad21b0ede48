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
	x := 0
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		x++
	}
	if used := Process() - before; used < 20*time.Millisecond {
		t.Fatalf("a 50 ms busy loop (%d turns) counted %v of CPU", x, used)
	}
}
