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
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The Java and Node libraries start serve with a pipe on its standard
// input that they never close and a fresh data folder serve makes: whatever ends
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

// A start that fails leaves no folder either, however the path is
// written (a trailing separator names the same folder serve made).
func TestServe_failedStartRemovesTheDataFolder(t *testing.T) {
	bin := buildBinary(t)
	for _, name := range []string{"made-by-serve", "made-by-serve" + string(filepath.Separator)} {
		t.Run(name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "made-by-serve")
			out, err := runServe(t, bin, "--data", filepath.Dir(data)+string(filepath.Separator)+name,
				"--scenario", filepath.Join(t.TempDir(), "missing.yaml"), "--remove-data-on-exit")
			if err == nil {
				t.Fatalf("serve started on a missing scenario: %s", out)
			}
			if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("data folder left behind after a failed start (%s): %v", out, err)
			}
		})
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

// parentEnv names the serve binary and the data folder when this test
// binary runs as TestHelperParent.
const parentEnv = "REWARDSIM_TEST_PARENT"

// TestHelperParent is not a test: run by TestServe_diesWithAKilledParent
// (REWARDSIM_TEST_PARENT="bin data"), it is a parent as the libraries
// are: it starts serve with pipes on its standard input, output and error,
// reads both, prints "ready SERVE-PID PUBLIC-URL CONTROL-URL" and waits
// to be killed.
func TestHelperParent(t *testing.T) {
	bin, data, ok := strings.Cut(os.Getenv(parentEnv), " ")
	if !ok {
		t.Skip("a helper process of TestServe_diesWithAKilledParent")
	}
	cmd := exec.Command(bin, "serve", "--data", data, "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0",
		"--log-level", "info", "--exit-on-stdin-eof", "--remove-data-on-exit")
	_, _ = cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	urls := map[string]string{}
	sc := bufio.NewScanner(stdout)
	for len(urls) < 2 && sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 5 && f[2] == "listening" {
			urls[f[1]] = f[4]
		}
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	fmt.Printf("ready %d %s %s\n", cmd.Process.Pid, urls["all"], urls["control"])
	time.Sleep(2 * time.Minute)
}

// Issue 55 item 2: when the process holding serve's pipes (a library's
// test process, the sweep) dies by SIGKILL with a request in flight,
// serve stops and removes the folder it created, every time: its log
// writes to the closed pipes (EPIPE, SIGPIPE on fd 1 and 2) killed it
// before the clean-up in 2 of 3 runs.
func TestServe_diesWithAKilledParent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	bin := buildBinary(t)
	for i := range 5 {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "made-by-serve")
			parent := exec.Command(os.Args[0], "-test.run=^TestHelperParent$", "-test.timeout=3m")
			parent.Env = append(os.Environ(), parentEnv+"="+bin+" "+data)
			out, _ := parent.StdoutPipe()
			if err := parent.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = parent.Process.Kill(); _ = parent.Wait() }()
			ready := make(chan []string, 1)
			go func() {
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					if f := strings.Fields(sc.Text()); len(f) == 4 && f[0] == "ready" {
						ready <- f[1:]
					}
				}
				close(ready)
			}()
			var said []string
			select {
			case said = <-ready:
			case <-time.After(60 * time.Second):
			}
			if len(said) == 0 {
				t.Fatal("the parent never said where serve listens")
			}
			pid, _ := strconv.Atoi(said[0])
			serve, _ := os.FindProcess(pid)
			holdARequest(t, said[1], said[2])
			_ = parent.Process.Kill()
			_ = parent.Wait()
			// The shutdown waits up to --shutdown-timeout (5 s) for the
			// held request; 20 s is a generous bound.
			deadline := time.Now().Add(20 * time.Second)
			for {
				_, statErr := os.Stat(data)
				gone := errors.Is(statErr, os.ErrNotExist)
				alive := serve.Signal(syscall.Signal(0)) == nil && !zombie(pid)
				if !alive {
					if !gone {
						t.Fatal("serve ended after its parent's SIGKILL and left its data folder")
					}
					return
				}
				if time.Now().After(deadline) {
					if alive {
						_ = serve.Kill()
					}
					t.Fatalf("20 s after its parent's SIGKILL: serve running %v, data folder left %v", alive, !gone)
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}

// zombie says whether pid has exited but is not yet reaped (its parent,
// here killed, leaves it to init).
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z")
}

// holdARequest sends a call that a delay fault holds for a minute, and
// returns once serve holds it; the channel gets the call's error (one
// that says "answered" if it was).
func holdARequest(t *testing.T, public, control string) <-chan error {
	t.Helper()
	rule := `{"endpoint":"getSecuredReferenceToken","action":{"kind":"delay","delay":"1m"}}`
	res, err := http.Post(control+"/__sim/faults", "application/json", strings.NewReader(rule))
	if err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("add the delay rule: %v %v", res, err)
	}
	res.Body.Close()
	c := demoPublisher(t, public)
	held := make(chan error, 1)
	go func() {
		_, err := c.ReferenceToken(context.Background())
		if err == nil {
			err = errors.New("answered")
		}
		held <- err
	}()
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(get(t, control+"/__sim/faults"), `"seen":1`); {
		if time.Now().After(deadline) {
			t.Fatal("the held request never reached the fault rule")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return held
}
