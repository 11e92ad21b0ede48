// Package leftovers tests .ci/no-leftovers, through which `make test` runs
// its whole suite: no process the run starts may outlive it (issue 42:
// `make test` left the engine's `podman system service --time=0` running).
package leftovers

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"rewardsim.invalid/ci-tools/internal/repo"
)

// wrap runs .ci/no-leftovers with script under sh and no grace period.
func wrap(t *testing.T, script string) (rc int, stderr string) {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(root, ".ci", "no-leftovers"), "sh", "-c", script)
	cmd.Env = append(os.Environ(), "REWARDSIM_LEFTOVER_GRACE=0")
	var eb bytes.Buffer
	cmd.Stderr = &eb
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), eb.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, eb.String()
}

// A daemon the run starts (here a sleep in a session of its own, as the
// engine's service was) fails the run, is named and is stopped; a run
// that leaves nothing keeps its own exit status.
func TestNoLeftovers(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	rc, stderr := wrap(t, "setsid sleep 3600 </dev/null >/dev/null 2>&1 & echo $! >"+pidFile+"; exit 0")
	raw, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	if pid > 0 {
		defer syscall.Kill(pid, syscall.SIGKILL)
	}
	if rc != 1 || !strings.Contains(stderr, "outlived it") || !strings.Contains(stderr, "sleep 3600") {
		t.Errorf("a run that left a daemon: exit %d, stderr %q; want 1 naming it", rc, stderr)
	}
	time.Sleep(100 * time.Millisecond)
	if pid <= 0 || syscall.Kill(pid, 0) == nil {
		if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err != nil || !strings.Contains(string(stat), ") Z ") {
			t.Errorf("the leftover daemon (pid %d) still runs", pid)
		}
	}
	for _, c := range []struct {
		script string
		want   int
	}{{"exit 0", 0}, {"exit 3", 3}, {"sleep 0.1 & wait", 0}} {
		if rc, stderr := wrap(t, c.script); rc != c.want || stderr != "" {
			t.Errorf("%q: exit %d, stderr %q; want %d and nothing said", c.script, rc, stderr, c.want)
		}
	}
}

// make test goes through the wrapper, and engine-deps installs the
// engine without starting a service that nothing would stop.
func TestMakeTestRunsThroughNoLeftovers(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\ntest:\n\t.ci/no-leftovers $(MAKE)", "\nengine-deps:\n\t.ci/engine/up --install "} {
		if !strings.Contains(string(mk), want) {
			t.Errorf("the Makefile lacks %q", want)
		}
	}
}
