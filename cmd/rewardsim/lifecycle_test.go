package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The Java and Node libraries start serve with a pipe on its standard
// input that they never close and a data folder they made: whatever ends
// the test process (SIGKILL included), the OS closes the pipe, and the
// simulator must then stop and take its folder with it (issue 40).
func TestServe_diesWithItsParentsPipeAndRemovesItsData(t *testing.T) {
	bin := buildBinary(t)
	for _, tc := range []struct {
		name string
		stop func(cmd *exec.Cmd, stdin io.Closer)
	}{
		{"the parent's pipe closes", func(_ *exec.Cmd, stdin io.Closer) { stdin.Close() }},
		{"SIGTERM", func(cmd *exec.Cmd, _ io.Closer) { _ = cmd.Process.Signal(syscall.SIGTERM) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "made-by-a-library")
			cmd := exec.Command(bin, "serve", "--data", data, "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0",
				"--log-level", "error", "--exit-on-stdin-eof", "--remove-data-on-exit")
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			sc := bufio.NewScanner(stdout)
			for listening := 0; listening < 2 && sc.Scan(); {
				if strings.Contains(sc.Text(), " listening on ") {
					listening++
				}
			}
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			if _, err := os.Stat(filepath.Join(data, "rewardsim.db")); err != nil {
				t.Fatalf("serve is up but its data folder is not: %v", err)
			}
			tc.stop(cmd, stdin)
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("serve exited with %v", err)
				}
			case <-time.After(2 * time.Second):
				t.Fatal("serve still running 2 s after its stop")
			}
			if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("data folder left behind: %v", err)
			}
		})
	}
}

// A start that fails leaves no folder either.
func TestServe_failedStartRemovesTheDataFolder(t *testing.T) {
	bin := buildBinary(t)
	data := filepath.Join(t.TempDir(), "made-by-a-library")
	out, err := exec.Command(bin, "serve", "--data", data, "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0",
		"--scenario", filepath.Join(t.TempDir(), "missing.yaml"), "--remove-data-on-exit").CombinedOutput()
	if err == nil {
		t.Fatalf("serve started on a missing scenario: %s", out)
	}
	if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("data folder left behind after a failed start (%s): %v", out, err)
	}
}
