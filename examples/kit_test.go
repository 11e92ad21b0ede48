// Package examples runs the publisher kit (docs/publisher-kit.md): the
// Java and Node clients walk the whole publisher flow against a real
// `rewardsim serve` process. They are programs in the users' languages
// and call no rewardsim code; this test only starts the server and runs them.
package examples

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// requireEnv makes a missing java or node a failure rather than a skip;
// `make test` sets it after installing both (make kit-deps).
const requireEnv = "REWARDSIM_REQUIRE_KIT"

func TestPublisherKit(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "rewardsim")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/rewardsim").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	urls := serve(t, bin)
	certs, _ := filepath.Abs("../certs")
	env := append(os.Environ(), "REWARDSIM_URL="+urls["all"], "REWARDSIM_CONTROL_URL="+urls["control"], "REWARDSIM_CERTS="+certs)
	for _, c := range []struct {
		name, dir, tool string
		args            []string
	}{
		{"node", "node", "node", []string{"publisher-flow.mjs"}},
		{"java", "java", "java", []string{"PublisherFlow.java"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := exec.LookPath(c.tool); err != nil {
				if os.Getenv(requireEnv) != "" {
					t.Fatalf("%s is not installed (make kit-deps installs it)", c.tool)
				}
				t.Skipf("%s is not installed; make test installs it", c.tool)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, c.tool, c.args...)
			cmd.Dir, cmd.Env = c.dir, env
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", c.tool, strings.Join(c.args, " "), err, out)
			}
			if !bytes.Contains(out, []byte("publisher flow: all steps passed")) {
				t.Fatalf("%s did not finish the flow:\n%s", c.name, out)
			}
			t.Logf("%s", out)
		})
	}
}

// serve starts `rewardsim serve` on free loopback ports and returns its URLs.
func serve(t *testing.T, bin string) map[string]string {
	cmd := exec.Command(bin, "serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0", "--log-level", "error")
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	urls := map[string]string{}
	sc := bufio.NewScanner(stdout)
	for len(urls) < 2 && sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 5 && f[2] == "listening" {
			urls[f[1]] = f[4]
		}
	}
	if len(urls) < 2 {
		t.Fatalf("serve did not report its listeners: %s", stderr.String())
	}
	go func() { _, _ = bufio.NewReader(stdout).WriteTo(discard{}) }()
	return urls
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
