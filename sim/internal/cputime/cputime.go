// Package cputime reads the process's own CPU time, for the benchmarks
// that report CPU per operation: on the shared build machine it drifts
// far less than wall-clock throughput (docs/performance.md).
package cputime

import (
	"syscall"
	"time"
)

// Process is the user+system CPU time the process has used so far (0 if
// it cannot be read).
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
