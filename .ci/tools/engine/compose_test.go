package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rewardsim.invalid/ci-tools/internal/repo"
)

// composeRecipe is the yaml block under "## docker compose" in docs/ci.md.
func composeRecipe(t *testing.T) string {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "\n## docker compose\n")
	if !ok {
		t.Fatal(`docs/ci.md has no "## docker compose" section`)
	}
	_, rest, ok = strings.Cut(rest, "```yaml\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/ci.md: no yaml block under ## docker compose")
	}
	return block
}

// The compose recipe of docs/ci.md, run by Debian's docker-compose against
// the engine's Docker socket. Two edits, both stated in docs/ci.md: the
// ports bind free loopback ports (this machine is shared), and the app,
// which the recipe builds from the user's Dockerfile, is the image's own
// `rewardsim healthcheck` calling the control API by the service name.
func TestComposeRecipeRuns(t *testing.T) {
	ref := load(t, engine(t))
	if _, err := exec.LookPath("docker-compose"); err != nil {
		if os.Getenv("REWARDSIM_REQUIRE_ENGINE") != "" {
			t.Fatal("docker-compose not installed (make engine-deps installs Debian's)")
		}
		t.Skip("docker-compose not installed")
	}
	recipe := composeRecipe(t)
	edits := []struct{ from, to string }{
		{`ports: ["8080:8080", "8090:8090"]`, `ports: ["127.0.0.1::8080", "127.0.0.1::8090"]`},
		{"    build: .\n", "    image: " + ref + "\n" +
			`    entrypoint: ["/usr/local/bin/rewardsim", "healthcheck", "--control", "http://rewardsim:8090"]` + "\n"},
	}
	for _, e := range edits {
		if !strings.Contains(recipe, e.from) {
			t.Fatalf("the compose recipe of docs/ci.md no longer has %q:\n%s", e.from, recipe)
		}
		recipe = strings.Replace(recipe, e.from, e.to, 1)
	}
	if strings.Contains(recipe, "CONTROL_ALLOWED_HOSTS") {
		t.Fatalf("the recipe still configures allowed hosts:\n%s", recipe)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "compose.yaml")
	if err := os.WriteFile(file, []byte(recipe), 0o644); err != nil {
		t.Fatal(err)
	}
	project := fmt.Sprintf("rsimcompose%d", os.Getpid())
	compose := func(args ...string) *exec.Cmd {
		cmd := exec.Command("docker-compose", append([]string{"-f", file, "-p", project}, args...)...)
		cmd.Dir = dir
		return cmd
	}
	t.Cleanup(func() { _ = compose("down", "--volumes", "--timeout", "10").Run() })

	// podman runs health checks from systemd timers; with no systemd here,
	// drive the image's health check while compose waits on service_healthy.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			names, _ := try("", "podman", "ps", "--filter", "label=com.docker.compose.project="+project,
				"--filter", "label=com.docker.compose.service=rewardsim", "--format", "{{.Names}}")
			for _, n := range strings.Fields(names) {
				_, _ = try("", "podman", "healthcheck", "run", n)
			}
			time.Sleep(500 * time.Millisecond)
		}
	}()

	up := compose("up", "--exit-code-from", "app", "--no-color")
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = up.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Minute):
		_ = up.Process.Kill()
		<-done
		t.Fatalf("docker-compose up did not finish in 3 minutes:\n%s", out)
	}
	if err != nil || !strings.Contains(string(out), "ok ") {
		t.Fatalf("docker-compose up --exit-code-from app: %v\n%s", err, out)
	}
	t.Logf("compose: the app reached http://rewardsim:8090 by its service name:\n%s", out)
}
