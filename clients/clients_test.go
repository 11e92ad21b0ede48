// Package clients runs the Java and Node test libraries' own suites (issue
// 21) the way their users run them: the JUnit 5 suite compiled against
// dist/java/rewardsim.jar and Debian's JUnit jars only, through the JUnit
// console launcher with two classes in parallel; the Node package's suites
// (node_test.go: node:test on Node 20, 22 and 24, Jest, Vitest,
// Testcontainers, the example service and docs/node.md) from fresh
// projects that installed only its packed tarballs.
// Each suite drives a real `rewardsim serve`.
package clients

import (
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
	// Node, npm, jest and Testcontainers keep caches and locks in the
	// temporary folder (node-compile-cache, jest_0, a lock file) that
	// outlived the run: every child here inherits a TMPDIR of this run's,
	// removed with it.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("TMPDIR", tmp)
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
// its own channel; ReportTest fails on the conformance report's findings
// of a planted mistake (issue 51, point 5). All 20 tests must pass.
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
	if counts["failed"] != 0 || counts["successful"] < 20 {
		t.Fatalf("JUnit: %v\n%s", counts, out)
	}
	t.Logf("JUnit: %d tests successful\n%s", counts["successful"], out)
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
		dir := npmProject(t, []string{"../examples/node/publisher-flow.mjs"}, nil)
		out := run(t, dir, env, 3*time.Minute, "node", "publisher-flow.mjs")
		if !strings.Contains(out, "node publisher flow: all steps passed") {
			t.Fatalf("the flow did not finish:\n%s", out)
		}
	})
}
