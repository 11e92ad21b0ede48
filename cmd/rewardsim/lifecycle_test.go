package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
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

// runServe runs serve to its end, bounded: its combined output and error.
func runServe(t *testing.T, bin string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, append([]string{"serve", "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0", "--log-level", "error"}, args...)...).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("serve %v still running after 30 s: %s", args, out)
	}
	return string(out), err
}

// stopServe stops a serve process with SIGTERM and waits for it, bounded.
func stopServe(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		t.Fatal("serve still running 20 s after SIGTERM")
	}
}

// Issue 55 item 1: --remove-data-on-exit removes only a folder serve
// created. A second serve refused by a running one's lock, or a folder of
// another version it refuses, kept their folder on today's build only by
// luck: the refused start deleted it, and the running instance, still
// answering 200, lost everything when it stopped.
func TestServe_removeDataOnExitKeepsAFolderItDidNotCreate(t *testing.T) {
	bin := buildBinary(t)
	frozen := "2026-03-01T10:00:00Z"
	frozenAt, _ := time.Parse(time.RFC3339, frozen)
	for _, tc := range []struct {
		name string
		// first runs serve on data with --remove-data-on-exit; it returns
		// the line its output must hold.
		first func(t *testing.T, data string) string
		// left says whether the folder still holds its owner's data.
		left func(t *testing.T, data string)
	}{
		{"a second instance refused by the running one's lock", func(t *testing.T, data string) string {
			sv := startBinary(t, bin, data)
			sv.ctl(t, "POST", "/__sim/clock", map[string]any{"mode": "frozen", "time": frozen})
			out, err := runServe(t, bin, "--data", data, "--exit-on-stdin-eof", "--remove-data-on-exit")
			if err == nil {
				t.Fatalf("a second serve started on a held folder: %s", out)
			}
			if code, body := sv.call(t, "GET", "/__sim/health", nil); code != http.StatusOK {
				t.Fatalf("the running instance after the refused start: HTTP %d %s", code, body)
			}
			stopServe(t, sv.cmd)
			return out
		}, func(t *testing.T, data string) {
			// The running instance's data outlives it: a new one reads it.
			sv := startBinary(t, bin, data)
			defer stopServe(t, sv.cmd)
			c := sv.ctl(t, "GET", "/__sim/clock", nil)
			if now, err := time.Parse(time.RFC3339, fmt.Sprint(c["now"])); c["mode"] != "frozen" || err != nil || !now.Equal(frozenAt) {
				t.Fatalf("the first instance's clock is lost: %v", c)
			}
		}},
		{"a folder of another version, refused", func(t *testing.T, data string) string {
			writeOldState(t, data)
			out, err := runServe(t, bin, "--data", data, "--remove-data-on-exit")
			if err == nil || !strings.Contains(out, "another version") {
				t.Fatalf("serve over another version's data: %v %s", err, out)
			}
			return out
		}, func(t *testing.T, data string) {
			if _, err := os.Stat(filepath.Join(data, "rewardsim.db")); err != nil {
				t.Fatalf("the other version's state file is gone: %v", err)
			}
		}},
		{"an existing folder, served and stopped", func(t *testing.T, data string) string {
			cmd, _, stderr := startServeLogged(t, bin, data, "--remove-data-on-exit")
			stopServe(t, cmd)
			return stderr.String()
		}, func(t *testing.T, data string) {
			if _, err := os.Stat(filepath.Join(data, "rewardsim.db")); err != nil {
				t.Fatalf("the folder's state file is gone: %v", err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			out := tc.first(t, data)
			if !strings.Contains(out, "did not create it and will not remove it") {
				t.Errorf("serve did not say it keeps the folder: %s", out)
			}
			if _, err := os.Stat(data); err != nil {
				t.Fatalf("a folder serve did not create was removed: %v (%s)", err, out)
			}
			tc.left(t, data)
		})
	}
}
