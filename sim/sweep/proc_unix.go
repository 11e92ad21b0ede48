//go:build unix

package sweep

import (
	"os/exec"
	"strconv"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, so a test runner's
// children die with it.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// runGroup is ownGroup for the command under test, which also dies with
// the sweep where the OS can say so (Linux: the parent-death signal).
func runGroup(cmd *exec.Cmd) {
	ownGroup(cmd)
	dieWithParent(cmd.SysProcAttr)
}

// killGroup kills cmd's whole process group.
func killGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// stopGently asks a process to stop (the simulator: a graceful stop).
func stopGently(cmd *exec.Cmd) { _ = cmd.Process.Signal(syscall.SIGTERM) }

// watchGroup starts a watcher that kills the started cmd's whole process
// group should the sweep die unannounced (SIGKILL: issue 50 item 5). The
// parent-death signal reaches only the group's leader, not the
// grandchildren a test runner starts; the watcher reads a pipe only the
// sweep holds, which the OS closes however the sweep ends. Its own group
// keeps a terminal's Ctrl-C, which the sweep answers itself, away from
// it. The returned stop ends the watcher without a kill.
func watchGroup(cmd *exec.Cmd) (stop func()) {
	// Shell built-ins only (read, kill): the command's environment may
	// have a PATH without cat, and a watcher that failed to find it
	// killed the group at once.
	w := exec.Command("/bin/sh", "-c", `while read -r _; do :; done; kill -s KILL -- -"$1"`, "sh", strconv.Itoa(cmd.Process.Pid))
	w.Env = []string{}
	ownGroup(w)
	lifeline, err := w.StdinPipe()
	if err == nil {
		err = w.Start()
	}
	if err != nil {
		return func() {}
	}
	return func() {
		_ = w.Process.Kill()
		_ = w.Wait()
		_ = lifeline.Close()
	}
}
