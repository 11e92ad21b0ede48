package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// The linker's values reach `version`, `--version` and /__sim/health of a
// real serve process, as make build/dist/image set them.
func TestVersionFromLdflags(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "rewardsim")
	ld := "-X main.version=v9.8.7-test -X main.commit=0123abc -X main.date=2026-11-22T00:00:00Z"
	if out, err := exec.Command("go", "build", "-ldflags", ld, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	want := "rewardsim v9.8.7-test\ncommit: 0123abc\nbuilt: 2026-11-22T00:00:00Z\ngo: " + runtime.Version() + "\n"
	if out, err := exec.Command(bin, "--version").Output(); err != nil || string(out) != want {
		t.Errorf("rewardsim --version = %q, %v; want %q", out, err, want)
	}
	// `version` also names the RSA back end serve would use (issue 14):
	// libcrypto where make test installed it, else go with the reason.
	out, err := exec.Command(bin, "version").Output()
	crypto, found := strings.CutPrefix(string(out), want)
	switch {
	case err != nil || !found:
		t.Errorf("rewardsim version = %q, %v; want %q then the crypto line", out, err, want)
	case os.Getenv("REWARDSIM_REQUIRE_LIBCRYPTO") != "" && crypto != "crypto: libcrypto\n":
		t.Errorf("rewardsim version crypto line = %q, want libcrypto", crypto)
	case !strings.HasPrefix(crypto, "crypto: libcrypto\n") && !strings.HasPrefix(crypto, "crypto: go ("):
		t.Errorf("rewardsim version crypto line = %q", crypto)
	}
	// It reads serve's settings (issue 23): the environment and the flag.
	env := exec.Command(bin, "version")
	env.Env = append(os.Environ(), "REWARDSIM_CRYPTO=go")
	if out, err := env.Output(); err != nil || !strings.HasSuffix(string(out), "crypto: go\n") {
		t.Errorf("REWARDSIM_CRYPTO=go rewardsim version = %q, %v; want crypto: go", out, err)
	}
	if out, err := exec.Command(bin, "version", "--crypto", "go").Output(); err != nil || !strings.HasSuffix(string(out), "crypto: go\n") {
		t.Errorf("rewardsim version --crypto go = %q, %v; want crypto: go", out, err)
	}
	cmd, urls := startServe(t, bin, t.TempDir())
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	res, err := http.Get(urls["control"] + "/__sim/health")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var health struct{ Version string }
	if err := json.NewDecoder(res.Body).Decode(&health); err != nil || health.Version != "v9.8.7-test" {
		t.Fatalf("health version = %q, %v", health.Version, err)
	}
}
