// Package engine runs rewardsim's image in a real container engine: the
// private podman of .ci/engine/up (runc, cgroupfs, no default ulimits),
// driven through its Docker-compatible socket by the podman and docker
// CLIs, as publishers' CI runs it. `make test` starts the engine and sets
// REWARDSIM_REQUIRE_ENGINE=1, so there the test runs, never skips.
package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rewardsim.invalid/ci-tools/internal/ociimage"
	"rewardsim.invalid/ci-tools/internal/repo"
	"rewardsim.invalid/ci-tools/internal/signcheck"
)

// engine returns the image tarball `make image` wrote, or skips (fails
// under REWARDSIM_REQUIRE_ENGINE) when there is no engine or image.
func engine(t *testing.T) (tarball string) {
	t.Helper()
	need := os.Getenv("REWARDSIM_REQUIRE_ENGINE") != ""
	miss := func(why string) {
		if need {
			t.Fatal(why)
		}
		t.Skip(why + ` (eval "$(.ci/engine/up)" and make image first)`)
	}
	if os.Getenv("CONTAINER_HOST") == "" || os.Getenv("DOCKER_HOST") == "" {
		miss("no engine: CONTAINER_HOST and DOCKER_HOST are unset")
	}
	dir := os.Getenv("REWARDSIM_IMAGE")
	if dir == "" {
		miss("no image: REWARDSIM_IMAGE is unset")
	}
	return filepath.Join(dir, ociimage.TarballName)
}

// run runs a CLI against the engine and returns its trimmed stdout.
func run(t *testing.T, stdin string, name string, args ...string) string {
	t.Helper()
	out, err := try(stdin, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return out
}

func try(stdin string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%v: %s%s", err, out, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// load loads the tarball and returns the image's versioned reference.
func load(t *testing.T, tarball string) string {
	out := run(t, "", "podman", "load", "-i", tarball)
	// "Loaded image: localhost/rewardsim:v1,localhost/rewardsim:latest",
	// or one line per name through the service.
	for _, line := range strings.Split(out, "\n") {
		_, refs, _ := strings.Cut(line, "Loaded image: ")
		for _, r := range strings.Split(strings.TrimSpace(refs), ",") {
			if r != "" && !strings.HasSuffix(r, ":latest") {
				return r
			}
		}
	}
	t.Fatalf("podman load named no versioned tag: %s", out)
	return ""
}

// mapped is the 127.0.0.1 URL the engine maps a container port to.
func mapped(t *testing.T, name, port string) string {
	out := run(t, "", "podman", "port", name, port+"/tcp")
	hostport := strings.Fields(out)[0]
	if !strings.HasPrefix(hostport, "127.0.0.1:") {
		t.Fatalf("port %s mapped to %s, not loopback", port, out)
	}
	return "http://" + hostport
}

// healthy runs the image's own health check through the engine until it
// passes: podman schedules health checks with systemd timers, and a CI
// container has no systemd, so nothing runs them unasked.
func healthy(t *testing.T, name string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		_, err := try("", "podman", "healthcheck", "run", name)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			logs, _ := try("", "podman", "logs", name)
			t.Fatalf("%s not healthy within %s: %v\n%s", name, within, err, logs)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// call makes an HTTP request with an optional Host header and JSON body.
func call(t *testing.T, method, url, host, body string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// The image in the engine as a publisher's CI runs it: mapped ports, the
// health check green, a signed call verified, the control API through the
// service alias with the image's defaults, /data kept across a restart,
// SIGTERM honoured within the stop deadline, and a process that is not root.
func TestImageRunsInTheEngine(t *testing.T) {
	ref := load(t, engine(t))
	name := fmt.Sprintf("rewardsim-enginetest-%d", os.Getpid())
	vol := name + "-data"
	run(t, "", "podman", "volume", "create", vol)
	t.Cleanup(func() {
		_, _ = try("", "podman", "rm", "--force", "--time", "2", name)
		_, _ = try("", "podman", "volume", "rm", "--force", vol)
	})
	run(t, "", "podman", "run", "-d", "--name", name,
		"-p", "127.0.0.1::8080", "-p", "127.0.0.1::8090", "-v", vol+":/data", ref)
	healthy(t, name, 30*time.Second)
	public, control := mapped(t, name, "8080"), mapped(t, name, "8090")

	// The docker CLI, where installed, sees the same engine through
	// DOCKER_HOST (docker-compose speaks the Docker API in the compose test).
	if _, err := exec.LookPath("docker"); err == nil {
		if out := run(t, "", "docker", "ps", "--filter", "name="+name, "--format", "{{.Names}} {{.Image}}"); out != name+" "+ref {
			t.Fatalf("docker ps: %q, want %q", out, name+" "+ref)
		}
	}

	// A signed call: the image's own `rewardsim sign`, run in the
	// container, seals the request; the answer's signature is verified
	// with the certificate the control API serves.
	envelope := run(t, `{"bName":"DEMOBANK"}`, "podman", "exec", "-i", name, "/usr/local/bin/rewardsim", "sign")
	st, body := call(t, http.MethodPost, public+"/api/getSecuredReferenceToken", "", envelope)
	var ans struct{ SIGN, BDATA string }
	if json.Unmarshal(body, &ans) != nil || st != 200 || ans.SIGN == "" {
		t.Fatalf("getSecuredReferenceToken: HTTP %d %s", st, body)
	}
	pub, err := signcheck.ServicePub(control)
	if err != nil {
		t.Fatal(err)
	}
	if err := signcheck.Verify(pub, ans.BDATA, ans.SIGN); err != nil {
		t.Fatalf("answer signature: %v", err)
	}

	// The control API through the service alias, with nothing configured:
	// health, the image's default scenario, a write (the clock, kept below).
	const alias = "rewardsim:8090"
	st, body = call(t, http.MethodGet, control+"/__sim/health", alias, "")
	var health struct{ Status, Crypto, Scenario string }
	if json.Unmarshal(body, &health) != nil || st != 200 || health.Status != "ok" || health.Scenario != "default" || health.Crypto != "libcrypto" {
		t.Fatalf("health via Host %s: HTTP %d %s (want crypto libcrypto)", alias, st, body)
	}
	t.Logf("health via Host %s: %s", alias, body)
	if st, body = call(t, http.MethodGet, control+"/__sim/scenarios/active", alias, ""); st != 200 || !strings.Contains(string(body), `"default"`) {
		t.Fatalf("active scenario via Host %s: HTTP %d %s", alias, st, body)
	}
	const frozen = "2031-02-03T04:05:06Z"
	if st, body = call(t, http.MethodPost, control+"/__sim/clock", alias, `{"mode":"frozen","time":"`+frozen+`"}`); st != 200 {
		t.Fatalf("clock write via Host %s: HTTP %d %s", alias, st, body)
	}
	// The test-only PKCS#12 from the running container, byte for byte.
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(root, "certs", "publisher-dev.p12"))
	if st, body = call(t, http.MethodGet, control+"/__sim/certs/publisher-dev.p12", alias, ""); st != 200 || !bytes.Equal(body, want) {
		t.Fatalf("GET /__sim/certs/publisher-dev.p12: HTTP %d, %d bytes (want %d)", st, len(body), len(want))
	}

	// Not root: the engine's view of the process's user.
	top := strings.Fields(run(t, "", "podman", "top", name, "huser", "user"))
	if len(top) != 4 || top[2] == "root" || top[2] == "0" || top[3] == "root" || top[3] == "0" {
		t.Fatalf("podman top: %v", top)
	}

	// SIGTERM: podman stop's default deadline is 10 s; exit 0 well inside it.
	began := time.Now()
	run(t, "", "podman", "stop", "--time", "10", name)
	took := time.Since(began)
	code := run(t, "", "podman", "inspect", name, "--format", "{{.State.ExitCode}}")
	if code != "0" || took >= 10*time.Second {
		logs, _ := try("", "podman", "logs", name)
		t.Fatalf("podman stop: exit code %s after %s\n%s", code, took, logs)
	}
	t.Logf("podman stop: exit 0 after %s", took.Round(time.Millisecond))

	// /data kept: the same container started again has the frozen clock.
	run(t, "", "podman", "start", name)
	healthy(t, name, 30*time.Second)
	control = mapped(t, name, "8090")
	st, body = call(t, http.MethodGet, control+"/__sim/clock", "", "")
	// The answer says the time in the scenario's zone: the same instant.
	var clock struct {
		Mode string
		Now  time.Time
	}
	wantNow, _ := time.Parse(time.RFC3339, frozen)
	if json.Unmarshal(body, &clock) != nil || st != 200 || clock.Mode != "frozen" || !clock.Now.Equal(wantNow) {
		t.Fatalf("clock after restart: HTTP %d %s, want frozen at %s", st, body, frozen)
	}
}

// The :<version>-static variant runs in the engine too, signing with Go's
// crypto/rsa, and its answers verify.
func TestStaticImageRunsInTheEngine(t *testing.T) {
	engine(t)
	dir := os.Getenv("REWARDSIM_IMAGE_STATIC")
	if dir == "" {
		if os.Getenv("REWARDSIM_REQUIRE_ENGINE") != "" {
			t.Fatal("REWARDSIM_IMAGE_STATIC is unset")
		}
		t.Skip("REWARDSIM_IMAGE_STATIC is unset")
	}
	ref := load(t, filepath.Join(dir, ociimage.TarballName))
	if !strings.HasSuffix(ref, "-static") {
		t.Fatalf("static image tagged %s, want :<version>-static", ref)
	}
	name := fmt.Sprintf("rewardsim-enginetest-static-%d", os.Getpid())
	t.Cleanup(func() { _, _ = try("", "podman", "rm", "--force", "--time", "2", name) })
	run(t, "", "podman", "run", "-d", "--name", name, "-p", "127.0.0.1::8080", "-p", "127.0.0.1::8090", ref)
	healthy(t, name, 30*time.Second)
	public, control := mapped(t, name, "8080"), mapped(t, name, "8090")
	st, body := call(t, http.MethodGet, control+"/__sim/health", "rewardsim:8090", "")
	var health struct{ Status, Crypto string }
	if json.Unmarshal(body, &health) != nil || st != 200 || health.Crypto != "go" {
		t.Fatalf("health: HTTP %d %s (want crypto go)", st, body)
	}
	envelope := run(t, `{"bName":"DEMOBANK"}`, "podman", "exec", "-i", name, "/usr/local/bin/rewardsim", "sign")
	st, body = call(t, http.MethodPost, public+"/api/getSecuredReferenceToken", "", envelope)
	var ans struct{ SIGN, BDATA string }
	if json.Unmarshal(body, &ans) != nil || st != 200 {
		t.Fatalf("getSecuredReferenceToken: HTTP %d %s", st, body)
	}
	pub, err := signcheck.ServicePub(control)
	if err != nil {
		t.Fatal(err)
	}
	if err := signcheck.Verify(pub, ans.BDATA, ans.SIGN); err != nil {
		t.Fatalf("answer signature: %v", err)
	}
}
