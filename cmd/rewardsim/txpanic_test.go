package main

import (
	"context"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// A panic inside a store transaction (the leader of a group commit runs
// every caller's function, out of reach of the request's own recover)
// is one request's 500 in its endpoint's shape, logged with its stack,
// and the process keeps serving. The binary is built with the test-only
// hook of txhook.go, which makes the first transaction panic.
func TestServe_panicInATransactionIsOneRequests500(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := filepath.Join(t.TempDir(), "rewardsim")
	if out, err := exec.Command("go", "build", "-tags", "rewardsim_txhook", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Setenv("REWARDSIM_TXHOOK_PANIC_AT", "1")
	cmd, urls, stderr := startServeLogged(t, bin, t.TempDir())
	stop := sync.OnceFunc(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	defer stop()
	c := demoPublisher(t, urls["all"])
	ctx := context.Background()
	_, err := c.UserToken(ctx, "VU-1")
	if err == nil || !strings.Contains(err.Error(), "FAILURE: Internal Error! (HTTP 500)") {
		t.Fatalf("the call whose transaction panicked: %v, want the bare Internal Error! with HTTP 500", err)
	}
	if _, err := c.UserToken(ctx, "VU-1"); err != nil {
		t.Fatalf("the same call next: %v", err)
	}
	if res, err := http.Get(urls["control"] + "/__sim/health"); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("health after the panic: %v %v", res, err)
	}
	stop() // stderr is read once the process is gone
	if log := stderr.String(); !strings.Contains(log, "panic in a store transaction") || !strings.Contains(log, "txhook.go") {
		t.Errorf("stderr does not tell the panic with its stack:\n%s", log)
	}
}
