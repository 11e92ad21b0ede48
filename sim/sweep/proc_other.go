//go:build !unix

package sweep

import "os/exec"

// ownGroup: no process groups here; the command alone is killed.
func ownGroup(*exec.Cmd) {}

func runGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

func stopGently(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

// watchGroup: a sweep killed outright leaves the command running here.
func watchGroup(*exec.Cmd) (stop func()) { return func() {} }
