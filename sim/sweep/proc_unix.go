//go:build unix

package sweep

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, so a test runner's
// children die with it.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills cmd's whole process group.
func killGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// stopGently asks a process to stop (the simulator: a graceful stop).
func stopGently(cmd *exec.Cmd) { _ = cmd.Process.Signal(syscall.SIGTERM) }
