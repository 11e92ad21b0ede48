// Package clients runs the Java and Node test libraries' own suites (issue
// 21) the way their users run them: the JUnit 5 suite compiled against
// dist/java/rewardsim.jar and Debian's JUnit jars only, through the JUnit
// console launcher with two classes in parallel; the node:test suite from a
// fresh project that installed dist/node/rewardsim.tgz alone; and
// rewardsim/testcontainers against the image of `make image` in a real
// engine (.ci/engine/up); the TypeScript declarations checked with tsc.
// Each suite drives a real `rewardsim serve`.
package clients

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// requireEnv makes missing artefacts or tools a failure rather than a skip;
// `make test` sets it after `make java node image` and kit-deps.
const requireEnv = "REWARDSIM_REQUIRE_KIT"

var rewardsimBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rewardsim-clients-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	rewardsimBin = filepath.Join(dir, "rewardsim")
	if out, err := exec.Command("go", "build", "-o", rewardsimBin, "../cmd/rewardsim").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// need returns the absolute path of a built artefact or ends the test.
func need(t *testing.T, rel, how string) string {
	p, _ := filepath.Abs(rel)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv(requireEnv) != "" {
			t.Fatalf("%s is missing: %s builds it", rel, how)
		}
		t.Skipf("%s is missing: %s builds it (make test does)", rel, how)
	}
	return p
}

func needTool(t *testing.T, tools ...string) {
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv(requireEnv) != "" {
				t.Fatalf("%s is not installed (make kit-deps installs it)", tool)
			}
			t.Skipf("%s is not installed; make test installs it", tool)
		}
	}
}

func run(t *testing.T, dir string, env []string, timeout time.Duration, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

var junitCount = regexp.MustCompile(`\[\s*(\d+) tests (successful|failed)\s*\]`)

// The JUnit 5 suite of clients/java/src/test: CouponTest and CardTest run
// at once (each waits for the other to start) on one simulator, each on
// its own channel.
func TestJavaLibrary(t *testing.T) {
	t.Parallel()
	needTool(t, "java", "javac")
	jar := need(t, "../dist/java/rewardsim.jar", "make java")
	launcher := need(t, "/usr/share/java/junit-platform-console-standalone.jar", "make java-deps")
	classes := t.TempDir()
	var sources []string
	_ = filepath.WalkDir("java/src/test/java", func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".java") {
			sources = append(sources, p)
		}
		return err
	})
	// Only the jar and Debian's JUnit API jars on the class path.
	cp := strings.Join([]string{jar, "/usr/share/java/junit-jupiter-api.jar", "/usr/share/java/apiguardian-api.jar", "/usr/share/java/opentest4j.jar"}, ":")
	run(t, ".", nil, 3*time.Minute, "javac", append([]string{"--release", "17", "-d", classes, "-cp", cp}, sources...)...)
	resources, _ := filepath.Glob("java/src/test/resources/*")
	for _, r := range resources {
		b, err := os.ReadFile(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(classes, filepath.Base(r)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// REWARDSIM_URL blanked: the extension starts its own simulator.
	env := []string{"REWARDSIM_BIN=" + rewardsimBin, "REWARDSIM_URL=", "REWARDSIM_CONTROL_URL="}
	out := run(t, ".", env, 5*time.Minute, "java", "-jar", launcher,
		"-cp", classes+":"+jar, "--select-package", "example", "--disable-banner", "--disable-ansi-colors",
		"--details=tree", "--fail-if-no-tests")
	counts := map[string]int{}
	for _, m := range junitCount.FindAllStringSubmatch(out, -1) {
		counts[m[2]], _ = strconv.Atoi(m[1])
	}
	if counts["failed"] != 0 || counts["successful"] < 17 {
		t.Fatalf("JUnit: %v\n%s", counts, out)
	}
	t.Logf("JUnit: %d tests successful\n%s", counts["successful"], out)
}

// npmProject makes a fresh project that installs only the packed tarball
// (and the extra packages named), with files copied in.
func npmProject(t *testing.T, files []string, extra ...string) string {
	tgz := need(t, "../dist/node/rewardsim.tgz", "make node")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"rewardsim-user","private":true,"type":"module"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"install", "--no-audit", "--no-fund", "--loglevel=error", tgz}
	if len(extra) == 0 {
		args = append(args, "--offline") // the tarball has no dependency to fetch
	}
	run(t, dir, nil, 5*time.Minute, "npm", append(args, extra...)...)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var nodeCount = regexp.MustCompile(`(?m)^# (pass|fail) (\d+)$`)

func nodeTest(t *testing.T, dir string, env []string, file string) {
	out := run(t, dir, env, 5*time.Minute, "node", "--test", file)
	counts := map[string]int{}
	for _, m := range nodeCount.FindAllStringSubmatch(out, -1) {
		counts[m[1]], _ = strconv.Atoi(m[2])
	}
	if counts["fail"] != 0 || counts["pass"] == 0 {
		t.Fatalf("node --test %s: %v\n%s", file, counts, out)
	}
	t.Logf("node --test %s: %d passed", file, counts["pass"])
}

// The node:test suite of clients/node/test, from the tarball alone.
func TestNodeLibrary(t *testing.T) {
	t.Parallel()
	needTool(t, "node", "npm")
	dir := npmProject(t, []string{"node/test/library.test.mjs"})
	nodeTest(t, dir, []string{"REWARDSIM_BIN=" + rewardsimBin}, "library.test.mjs")
}

// The packages a user adds from the npm registry beside the tarball:
// `testcontainers` (10.x runs on Node 18+), and TypeScript with Node's
// types to check the declarations against the surface (surface.ts).
func TestNodeWithRegistryPackages(t *testing.T) {
	t.Parallel()
	needTool(t, "node", "npm")
	image := need(t, "../dist/image/rewardsim-image.tar", "make image")
	dir := npmProject(t, []string{"node/test/testcontainers.test.mjs", "node/test/surface.ts"},
		"testcontainers@10", "typescript@5", "@types/node@20")

	t.Run("types", func(t *testing.T) {
		run(t, dir, nil, 2*time.Minute, "npx", "--no-install", "tsc", "--noEmit", "--strict",
			"--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "surface.ts")
	})

	// rewardsim/testcontainers starts the image of `make image` in the
	// repository's podman engine (.ci/engine/up) and a channel issues a card.
	t.Run("testcontainers", func(t *testing.T) {
		if os.Getenv(requireEnv) == "" && os.Getenv("DOCKER_HOST") == "" {
			t.Skip("no container engine: make test starts one (.ci/engine/up)")
		}
		var env []string
		up := exec.Command("../.ci/engine/up")
		up.Stderr = os.Stderr
		exports, err := up.Output()
		if err != nil {
			t.Fatalf(".ci/engine/up: %v", err)
		}
		sc := bufio.NewScanner(bytes.NewReader(exports))
		for sc.Scan() {
			if kv, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "export "); ok {
				k, v, _ := strings.Cut(kv, "=")
				env = append(env, k+"="+strings.Trim(v, `'"`))
			}
		}
		// Ryuk cannot run here; the simulator is reached on loopback only.
		env = append(env, "TESTCONTAINERS_RYUK_DISABLED=true", "TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1", "REWARDSIM_IMAGE=rewardsim:latest")
		load := run(t, ".", env, 3*time.Minute, "podman", "load", "-i", image)
		t.Logf("%s", strings.TrimSpace(load))
		nodeTest(t, dir, env, "testcontainers.test.mjs")
	})
}

// The publisher kit (examples/, docs/publisher-kit.md): the whole flow and
// one failure of each kind, through each library, against a real serve.
func TestExamples(t *testing.T) {
	t.Parallel()
	env := []string{"REWARDSIM_BIN=" + rewardsimBin, "REWARDSIM_URL=", "REWARDSIM_CONTROL_URL="}
	t.Run("java", func(t *testing.T) {
		t.Parallel()
		needTool(t, "java")
		jar := need(t, "../dist/java/rewardsim.jar", "make java")
		out := run(t, "../examples/java", env, 3*time.Minute, "java", "-cp", jar, "PublisherFlow.java")
		if !strings.Contains(out, "java publisher flow: all steps passed") {
			t.Fatalf("the flow did not finish:\n%s", out)
		}
	})
	t.Run("node", func(t *testing.T) {
		t.Parallel()
		needTool(t, "node", "npm")
		dir := npmProject(t, []string{"../examples/node/publisher-flow.mjs"})
		out := run(t, dir, env, 3*time.Minute, "node", "publisher-flow.mjs")
		if !strings.Contains(out, "node publisher flow: all steps passed") {
			t.Fatalf("the flow did not finish:\n%s", out)
		}
	})
}
