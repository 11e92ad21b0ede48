// Package repo finds the rewardsim checkout these tools sit in and builds
// its binary the way a release does (static, CGO off, version stamped).
package repo

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// Root is the rewardsim checkout: the nearest parent of the working folder
// whose go.mod declares the product module.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(data), "module github.com/rewardsim/rewardsim\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no rewardsim checkout above the working folder")
		}
		dir = parent
	}
}

// Build compiles cmd/rewardsim for goos/goarch into out, static (CGO off)
// and trimmed, stamping version, commit and date as make does.
func Build(root, out, goos, goarch, version, commit, date string) error {
	ld := fmt.Sprintf("-s -w -X main.version=%s -X main.commit=%s -X main.date=%s", version, commit, date)
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ld, "-o", out, "./cmd/rewardsim")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s/%s: %v\n%s", goos, goarch, err, b)
	}
	return nil
}

// BuildHost builds for the machine running the tests.
func BuildHost(root, out string) error {
	return Build(root, out, runtime.GOOS, runtime.GOARCH, "v0.0.0-test", "test", "unknown")
}

// StartServe starts cmd (a `rewardsim serve` on port-0 listeners) and
// returns the URL of each listener it reports ("all", "control", ...)
// and a stop that ends it with SIGTERM and waits.
func StartServe(cmd *exec.Cmd) (urls map[string]string, stop func(), err error) {
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	stop = func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }
	urls = map[string]string{}
	sc := bufio.NewScanner(stdout)
	for len(urls) < 2 && sc.Scan() {
		// "rewardsim: all listening on http://127.0.0.1:NNNN"
		if f := strings.Fields(sc.Text()); len(f) == 5 && f[2] == "listening" {
			urls[f[1]] = f[4]
		}
	}
	if len(urls) < 2 {
		stop()
		return nil, nil, fmt.Errorf("serve did not report its listeners: %s", stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return urls, stop, nil
}
