//go:build !unix

package sweep

import "os/exec"

// ownGroup: no process groups here; the command alone is killed.
func ownGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

func stopGently(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
