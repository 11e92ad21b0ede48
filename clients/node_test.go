package clients

// The Node package's suites (issues 39 and 40), run the way a team runs
// them: a fresh project that installed only the packed tarballs of
// `make node` (rewardsim.tgz and this machine's platform package), with no
// Go toolchain on PATH and no REWARDSIM_BIN, on Node 20, 22 and 24 from
// the npm registry's node-linux-<cpu> packages; Jest and Vitest; the
// Testcontainers major each Node supports; a test process killed with
// SIGKILL; and every example of docs/node.md. The runners and Node builds
// come from bin/node-kit (make node-kit), installed once and cached.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var nodeVersions = []string{"20", "22", "24"}

// nodeKit is bin/node-kit, where make node-kit installs Node builds and runners.
func nodeKit(t *testing.T) string {
	return need(t, "../bin/node-kit/node_modules", "make node-kit")
}

func nodeOf(t *testing.T, version string) string {
	return need(t, filepath.Join("../bin/node-kit/node_modules", "node"+version, "bin", "node"), "make node-kit")
}

// nodePlatform is this machine as Node names it (process.platform-process.arch).
func nodePlatform() string {
	goos, arch := runtime.GOOS, runtime.GOARCH
	if goos == "windows" {
		goos = "win32"
	}
	if arch == "amd64" {
		arch = "x64"
	}
	return goos + "-" + arch
}

// npmProject makes a fresh project that installed only the packed tarballs
// (offline: rewardsim's one dependency is its platform package), links the
// kit's packages named in links (name in node_modules -> kit package), and
// copies files in.
func npmProject(t *testing.T, files []string, links map[string]string) string {
	tgz := need(t, "../dist/node/rewardsim.tgz", "make node")
	platform := need(t, "../dist/node/rewardsim-"+nodePlatform()+".tgz", "make node")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"rewardsim-user","private":true,"type":"module"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, nil, 3*time.Minute, "npm", "install", "--offline", "--no-audit", "--no-fund", "--loglevel=error", tgz, platform)
	for name, target := range links {
		link := filepath.Join(dir, "node_modules", name)
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(nodeKit(t), target), link); err != nil {
			t.Fatal(err)
		}
	}
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

// hermeticEnv is the environment of a team with no Go: PATH holds the
// chosen node's folder and the system folders without go or rewardsim;
// no REWARDSIM_* setting; the binary cache in a folder of the test's own.
func hermeticEnv(t *testing.T, node string, extra ...string) []string {
	var path []string
	path = append(path, filepath.Dir(node))
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		_, goErr := os.Stat(filepath.Join(d, "go"))
		_, simErr := os.Stat(filepath.Join(d, "rewardsim"))
		if d != "" && goErr != nil && simErr != nil {
			path = append(path, d)
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "REWARDSIM_") && !strings.HasPrefix(kv, "GO") && !strings.HasPrefix(kv, "NODE_") && !strings.HasPrefix(kv, "FORCE_COLOR=") {
			env = append(env, kv)
		}
	}
	// NO_COLOR: the runners' summaries are matched as text, and a CI that
	// sets FORCE_COLOR or a terminal would put escapes between the words.
	env = append(env, "PATH="+strings.Join(path, string(os.PathListSeparator)), "REWARDSIM_CACHE="+t.TempDir(), "NO_COLOR=1")
	return append(env, extra...)
}

// ansiEscape matches a terminal colour or style sequence, which some
// runners print even with NO_COLOR when they believe a CI wants them.
var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

// runIn runs name with exactly env (not added to this process's own).
func runIn(t *testing.T, dir string, env []string, timeout time.Duration, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	timer := time.AfterFunc(timeout, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return ansiEscape.ReplaceAllString(string(out), "")
}

var nodeCount = regexp.MustCompile(`(?m)^# (pass|fail) (\d+)$`)

// passed fails t unless node --test's output counts passes and no failure.
func passed(t *testing.T, what, out string, re *regexp.Regexp) {
	counts := map[string]int{}
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[2])
		counts[m[1]] += n
	}
	if counts["fail"] != 0 || counts["pass"] == 0 {
		t.Fatalf("%s: %v\n%s", what, counts, out)
	}
	t.Logf("%s: %v", what, counts)
}

// The package's node:test suites (clients/node/test) on Node 20, 22 and
// 24, from the tarballs alone, the simulator from the platform package.
func TestNodeLibrary(t *testing.T) {
	t.Parallel()
	needTool(t, "npm")
	dir := npmProject(t, []string{"node/test/library.test.mjs", "node/test/channel.test.mjs", "../scenarios/default.yaml"}, nil)
	for _, v := range nodeVersions {
		t.Run("node"+v, func(t *testing.T) {
			t.Parallel()
			node := nodeOf(t, v)
			env := hermeticEnv(t, node, "REWARDSIM_EXPECT_PACKAGED=1")
			if _, err := exec.Command("env", append([]string{"-i"}, append(env, "sh", "-c", "command -v go")...)...).Output(); err == nil {
				t.Fatal("go is on the hermetic PATH")
			}
			out := runIn(t, dir, env, 4*time.Minute, node, "--test", "--test-reporter=tap", "library.test.mjs", "channel.test.mjs")
			passed(t, "node"+v+" --test", out, nodeCount)
		})
	}
}

// Jest (CommonJS through its own transform: require('rewardsim')) and
// Vitest (ESM), each with a channel per test, on Node 22.
func TestNodeJestAndVitest(t *testing.T) {
	t.Parallel()
	needTool(t, "npm")
	kit := nodeKit(t)
	dir := npmProject(t, []string{"node/test/coupon.jest.test.cjs", "node/test/coupon.vitest.test.mjs"}, map[string]string{"vitest": "vitest"})
	// Each Node the package supports, as the test runners teams use there.
	for _, version := range []string{"20", "22", "24"} {
		node := nodeOf(t, version)
		t.Run("jest@node"+version, func(t *testing.T) {
			out := runIn(t, dir, hermeticEnv(t, node), 3*time.Minute, node, filepath.Join(kit, "jest/bin/jest.js"), "--ci", "--rootDir", dir, "coupon.jest.test.cjs")
			if !regexp.MustCompile(`Tests:\s+\d+ passed, \d+ total`).MatchString(out) {
				t.Fatalf("jest:\n%s", out)
			}
		})
		t.Run("vitest@node"+version, func(t *testing.T) {
			out := runIn(t, dir, hermeticEnv(t, node), 3*time.Minute, node, filepath.Join(kit, "vitest/vitest.mjs"), "run", "--root", dir, "coupon.vitest.test.mjs")
			if !regexp.MustCompile(`Tests\s+\d+ passed`).MatchString(out) || strings.Contains(out, "failed") {
				t.Fatalf("vitest:\n%s", out)
			}
		})
	}
}

var (
	engineOnce sync.Once
	engineVars []string
	engineErr  error
)

// engineEnv starts the repository's podman engine (.ci/engine/up), loads
// the image of `make image` into it, once for every test, and returns
// what it exports, with what Testcontainers needs for it.
func engineEnv(t *testing.T) []string {
	image := need(t, "../dist/image/rewardsim-image.tar", "make image")
	engineOnce.Do(func() {
		engineVars, engineErr = startEngine()
		if engineErr == nil {
			load := exec.Command("podman", "load", "-i", image)
			load.Env = append(os.Environ(), engineVars...)
			if out, err := load.CombinedOutput(); err != nil {
				engineErr = fmt.Errorf("podman load: %v\n%s", err, out)
			}
		}
	})
	if engineErr != nil {
		t.Fatal(engineErr)
	}
	return engineVars
}

func startEngine() ([]string, error) {
	up := exec.Command("../.ci/engine/up")
	up.Stderr = os.Stderr
	exports, err := up.Output()
	if err != nil {
		return nil, fmt.Errorf(".ci/engine/up: %v", err)
	}
	var env []string
	sc := bufio.NewScanner(bytes.NewReader(exports))
	for sc.Scan() {
		if kv, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "export "); ok {
			k, v, _ := strings.Cut(kv, "=")
			env = append(env, k+"="+strings.Trim(v, `'"`))
		}
	}
	// Ryuk cannot run here; the simulator is reached on loopback only.
	return append(env, "TESTCONTAINERS_RYUK_DISABLED=true", "TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1", "REWARDSIM_IMAGE=rewardsim:latest"), nil
}

// rewardsim/testcontainers with testcontainers 11 on Node 20 and 12 on
// Node 22 and 24, against the image of `make image` in the repository's
// podman engine; and the TypeScript declarations against the surface.
func TestNodeTestcontainers(t *testing.T) {
	t.Parallel()
	needTool(t, "npm")
	majors := map[string]string{"20": "tc11", "22": "tc12", "24": "tc12"}
	t.Run("types", func(t *testing.T) {
		// fault-kinds.ts: generated from the simulator's table of fault kinds (issue 51,
		// TestLibraryFaultKinds in sim/internal/fault): every kind an endpoint shows is taken, every other refused.
		dir := npmProject(t, []string{"node/test/surface.ts", "node/test/surface-cjs.cts", "node/test/fault-kinds.ts"},
			map[string]string{"testcontainers": "tc12", "typescript": "typescript", "@types/node": "@types/node"})
		node := nodeOf(t, "22")
		runIn(t, dir, hermeticEnv(t, node), 2*time.Minute, node, "node_modules/typescript/bin/tsc", "--noEmit", "--strict",
			"--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "surface.ts", "surface-cjs.cts", "fault-kinds.ts")
	})
	if os.Getenv(requireEnv) == "" && os.Getenv("DOCKER_HOST") == "" {
		t.Skip("no container engine: make test starts one (.ci/engine/up)")
	}
	env := engineEnv(t)
	for _, v := range nodeVersions {
		t.Run("node"+v+"-"+majors[v], func(t *testing.T) {
			t.Parallel()
			dir := npmProject(t, []string{"node/test/testcontainers.test.mjs"}, map[string]string{"testcontainers": majors[v]})
			node := nodeOf(t, v)
			// require() of the ESM-only module, where Node loads ES modules with require.
			runIn(t, dir, hermeticEnv(t, node), time.Minute, node, "-e", `require("rewardsim/testcontainers").RewardsimContainer.name`)
			out := runIn(t, dir, hermeticEnv(t, node, env...), 4*time.Minute, node, "--test", "--test-reporter=tap", "testcontainers.test.mjs")
			passed(t, "node"+v+" testcontainers", out, nodeCount)
		})
	}
}

// alive reports whether pid is a process that is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) == 0 || fields[0] != "Z"
}

// However a Node test process running a simulator ends (kill -9, SIGTERM,
// an uncaught exception, the end of its work without close()): within
// 2 s neither the rewardsim process nor its data folder remains (the pipe
// on its standard input closes; serve --exit-on-stdin-eof
// --remove-data-on-exit).
func TestNodeProcessEndLeavesNothing(t *testing.T) {
	t.Parallel()
	needTool(t, "npm")
	dir := npmProject(t, nil, nil)
	node := nodeOf(t, "22")
	for _, c := range []struct {
		name   string
		signal syscall.Signal // 0: the process ends by itself
		rest   string         // the script after the simulator started
	}{
		{"kill -9", syscall.SIGKILL, `setInterval(() => {}, 1000);`},
		{"SIGTERM", syscall.SIGTERM, `setInterval(() => {}, 1000);`},
		{"uncaught exception", 0, `setTimeout(() => { throw new Error("a test blew up"); }, 300);`},
		{"end without close", 0, ``},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			script := "import { startRewardsim } from \"rewardsim\";\nconst sim = await startRewardsim();\nconsole.log(JSON.stringify(sim.process));\n" + c.rest
			file := strings.ReplaceAll(c.name, " ", "-") + ".mjs"
			if err := os.WriteFile(filepath.Join(dir, file), []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			pid, dataDir, cmd := startHolding(t, dir, node, file)
			if c.signal != 0 {
				if err := cmd.Process.Signal(c.signal); err != nil {
					t.Fatal(err)
				}
			}
			_ = cmd.Wait()
			ended := time.Now()
			for {
				_, statErr := os.Stat(dataDir)
				if !alive(pid) && os.IsNotExist(statErr) {
					t.Logf("rewardsim %d and %s gone %v after the test process ended (%s)", pid, dataDir, time.Since(ended).Round(time.Millisecond), c.name)
					return
				}
				if time.Since(ended) > 2*time.Second {
					_ = syscall.Kill(pid, syscall.SIGKILL)
					t.Fatalf("2 s after %s: rewardsim %d alive=%v, data folder %s: %v", c.name, pid, alive(pid), dataDir, statErr)
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}

// startHolding runs a Node script that starts a simulator and prints
// sim.process; it returns the simulator's pid and data folder, both checked
// to be there.
func startHolding(t *testing.T, dir, node, file string) (int, string, *exec.Cmd) {
	cmd := exec.Command(node, file)
	cmd.Dir, cmd.Env, cmd.Stderr = dir, hermeticEnv(t, node), os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the test process printed no simulator: %v", err)
	}
	var sim struct {
		Pid     int    `json:"pid"`
		DataDir string `json:"dataDir"`
	}
	if err := json.Unmarshal([]byte(line), &sim); err != nil || sim.Pid == 0 || sim.DataDir == "" {
		t.Fatalf("%q: %v", line, err)
	}
	if _, err := os.Stat(sim.DataDir); err != nil || !alive(sim.Pid) {
		t.Fatalf("the simulator is not running: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return sim.Pid, sim.DataDir, cmd
}

// examples/node-service: a publisher service configured from ch.env()
// alone, its two node:test files in parallel, from a project that
// installed only the packed tarballs, with no Go and no REWARDSIM_BIN.
func TestNodeServiceExample(t *testing.T) {
	t.Parallel()
	needTool(t, "npm")
	dir := nodeServiceProject(t)
	node := nodeOf(t, "22")
	out := runIn(t, dir, hermeticEnv(t, node, "REWARDSIM_EXPECT_PACKAGED=1"), 4*time.Minute, node, "--test", "--test-reporter=tap", "test/claim.test.mjs", "test/cards.test.mjs")
	passed(t, "examples/node-service", out, nodeCount)
	if !strings.Contains(out, "# skipped 0") {
		t.Fatalf("a test was skipped:\n%s", out)
	}
}

// nodeServiceProject is a project that installed only the packed
// tarballs, holding examples/node-service's service and its test folder,
// with the extra test files added to it.
func nodeServiceProject(t *testing.T, extra ...string) string {
	dir := npmProject(t, []string{"../examples/node-service/service.mjs"}, nil)
	if err := os.MkdirAll(filepath.Join(dir, "test"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range append([]string{"../examples/node-service/test/helpers.mjs", "../examples/node-service/test/claim.test.mjs",
		"../examples/node-service/test/cards.test.mjs"}, extra...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "test", filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// docExample is one ```js or ```ts block of docs/node.md: its first line
// names the file it is and how it runs ("// name.test.mjs: node --test").
type docExample struct {
	line         int
	file, runner string
	code         string
}

var docHeader = regexp.MustCompile(`^// (\S+): (node --test|node|jest|vitest|tsc)$`)

func nodeDocExamples(t *testing.T) []docExample {
	data, err := os.ReadFile("../docs/node.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var out []docExample
	for i := 0; i < len(lines); i++ {
		fence := strings.TrimSpace(lines[i])
		if fence != "```js" && fence != "```ts" {
			continue
		}
		if i > 0 && strings.HasPrefix(lines[i-1], "<!-- doctest: skip") {
			continue
		}
		start := i + 1
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
		}
		m := docHeader.FindStringSubmatch(lines[start])
		if m == nil {
			t.Fatalf("docs/node.md:%d: an example must open with // <file>: <node --test|node|jest|vitest|tsc>", start)
		}
		out = append(out, docExample{line: start, file: m[1], runner: m[2], code: strings.Join(lines[start:i], "\n") + "\n"})
	}
	return out
}

// Every ```js and ```ts example of docs/node.md, run as its header says,
// on Node 22, from a project that installed only the packed tarballs;
// examples/node-service/service.mjs beside them (the service they test).
func TestNodeDocs(t *testing.T) {
	t.Parallel()
	needTool(t, "npm")
	examples := nodeDocExamples(t)
	if len(examples) < 8 {
		t.Fatalf("docs/node.md: %d examples found", len(examples))
	}
	kit := nodeKit(t)
	dir := npmProject(t, []string{"../examples/node-service/service.mjs"}, map[string]string{
		"vitest": "vitest", "testcontainers": "tc12", "typescript": "typescript", "@types/node": "@types/node"})
	node := nodeOf(t, "22")
	var engine []string
	for _, ex := range examples {
		if err := os.WriteFile(filepath.Join(dir, ex.file), []byte(ex.code), 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(ex.code, "rewardsim/testcontainers") && engine == nil {
			if os.Getenv(requireEnv) == "" && os.Getenv("DOCKER_HOST") == "" {
				t.Skip("no container engine: make test starts one (.ci/engine/up)")
			}
			engine = engineEnv(t)
		}
	}
	for _, ex := range examples {
		t.Run(ex.file, func(t *testing.T) {
			t.Parallel()
			env := hermeticEnv(t, node, engine...)
			switch ex.runner {
			case "node --test":
				passed(t, ex.file, runIn(t, dir, env, 3*time.Minute, node, "--test", "--test-reporter=tap", ex.file), nodeCount)
			case "node":
				runIn(t, dir, env, 2*time.Minute, node, ex.file)
			case "jest":
				runIn(t, dir, env, 3*time.Minute, node, filepath.Join(kit, "jest/bin/jest.js"), "--ci", "--rootDir", dir, ex.file)
			case "vitest":
				runIn(t, dir, env, 3*time.Minute, node, filepath.Join(kit, "vitest/vitest.mjs"), "run", "--root", dir, ex.file)
			case "tsc":
				runIn(t, dir, env, 2*time.Minute, node, "node_modules/typescript/bin/tsc", "--noEmit", "--strict",
					"--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", ex.file)
			}
		})
	}
}

// The binary's resolution order past the platform package: with the
// optional dependencies omitted, REWARDSIM_BIN, else PATH, else an error
// naming the platform package to add.
func TestNodeBinaryResolution(t *testing.T) {
	t.Parallel()
	needTool(t, "npm")
	tgz := need(t, "../dist/node/rewardsim.tgz", "make node")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"no-platform","private":true,"type":"module"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, nil, 3*time.Minute, "npm", "install", "--offline", "--omit=optional", "--no-audit", "--no-fund", "--loglevel=error", tgz)
	script := `import { startRewardsim } from "rewardsim";
try { const sim = await startRewardsim(); console.log("from " + sim.process.from); await sim.close(); }
catch (e) { console.log("error " + e.message); }`
	if err := os.WriteFile(filepath.Join(dir, "resolve.mjs"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	onPath := t.TempDir()
	if err := os.Symlink(rewardsimBin, filepath.Join(onPath, "rewardsim")); err != nil {
		t.Fatal(err)
	}
	node := nodeOf(t, "22")
	hermetic := hermeticEnv(t, node)
	path := ""
	for _, kv := range hermetic {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = p
		}
	}
	for _, c := range []struct {
		name, want string
		env        []string
	}{
		{"nothing", "error rewardsim: no simulator binary for " + nodePlatform() + ": install the platform tarball rewardsim-" + nodePlatform() + ".tgz", nil},
		{"PATH", "from PATH", []string{"PATH=" + onPath + string(os.PathListSeparator) + path}},
		{"REWARDSIM_BIN", "from REWARDSIM_BIN", []string{"REWARDSIM_BIN=" + rewardsimBin}},
	} {
		out := runIn(t, dir, append(hermetic, c.env...), time.Minute, node, "resolve.mjs")
		if !strings.HasPrefix(strings.TrimSpace(out), c.want) {
			t.Errorf("%s: got %q, want %q...", c.name, out, c.want)
		}
		if strings.Contains(out, "npm install") { // issue 51: no advice to fetch an unpublished public name
			t.Errorf("%s: the error advises an npm install: %q", c.name, out)
		}
	}
}

// tarball reads an npm tarball with tar(1) (Go's gzip under -race takes
// a minute for the six binaries): whether each file is executable, and
// package.json.
func tarball(t *testing.T, path string) (executable map[string]bool, manifest []byte) {
	list, err := exec.Command("tar", "-tvzf", path).Output()
	if err != nil {
		t.Fatalf("tar -tvzf %s: %v", path, err)
	}
	executable = map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(list)), "\n") {
		f := strings.Fields(line)
		if len(f) >= 6 {
			executable[f[len(f)-1]] = strings.Contains(f[0], "x")
		}
	}
	if manifest, err = exec.Command("tar", "-xzOf", path, "package/package.json").Output(); err != nil {
		t.Fatalf("%s: package.json: %v", path, err)
	}
	return executable, manifest
}

// What make node packs: LICENSE in every tarball; one package per
// platform with its os and cpu fields and an executable binary; rewardsim
// with the rewardsim command and the SHA-256 of each platform's binary
// (issue 51), and no dependency on the platform packages: npm would look
// their unpublished names up in the public registry.
func TestNodeTarballs(t *testing.T) {
	t.Parallel()
	main, mainManifest := tarball(t, need(t, "../dist/node/rewardsim.tgz", "make node"))
	var manifest struct {
		Version  string            `json:"version"`
		Optional map[string]string `json:"optionalDependencies"`
		Deps     map[string]string `json:"dependencies"`
		Bin      map[string]string `json:"bin"`
	}
	if err := json.Unmarshal(mainManifest, &manifest); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"package/LICENSE", "package/index.js", "package/index.cjs", "package/binary.cjs", "package/cli.cjs", "package/cert.cjs",
		"package/index.d.ts", "package/index.d.cts", "package/binaries.json"} {
		if _, ok := main[f]; !ok {
			t.Errorf("rewardsim.tgz has no %s", f)
		}
	}
	if len(manifest.Optional)+len(manifest.Deps) != 0 || manifest.Bin["rewardsim"] != "cli.cjs" {
		t.Errorf("rewardsim's package.json: dependencies %v, optionalDependencies %v (want none), bin %v (want rewardsim: cli.cjs)",
			manifest.Deps, manifest.Optional, manifest.Bin)
	}
	pinsJSON, err := exec.Command("tar", "-xzOf", "../dist/node/rewardsim.tgz", "package/binaries.json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var pins struct {
		Version string            `json:"version"`
		SHA256  map[string]string `json:"sha256"`
	}
	if err := json.Unmarshal(pinsJSON, &pins); err != nil || pins.Version != manifest.Version {
		t.Fatalf("binaries.json: %v, %s", err, pinsJSON)
	}
	want := map[string][2]string{"linux-x64": {"linux", "x64"}, "linux-arm64": {"linux", "arm64"}, "darwin-x64": {"darwin", "x64"},
		"darwin-arm64": {"darwin", "arm64"}, "win32-x64": {"win32", "x64"}, "win32-arm64": {"win32", "arm64"}}
	for platform, oscpu := range want {
		name := "@rewardsim/" + platform
		tgz := need(t, "../dist/node/rewardsim-"+platform+".tgz", "make node")
		files, pkgManifest := tarball(t, tgz)
		var pkg struct {
			Name string   `json:"name"`
			OS   []string `json:"os"`
			CPU  []string `json:"cpu"`
		}
		if err := json.Unmarshal(pkgManifest, &pkg); err != nil {
			t.Fatal(err)
		}
		if pkg.Name != name || len(pkg.OS) != 1 || pkg.OS[0] != oscpu[0] || len(pkg.CPU) != 1 || pkg.CPU[0] != oscpu[1] {
			t.Errorf("%s: package.json %+v", platform, pkg)
		}
		exe := "package/bin/rewardsim"
		if oscpu[0] == "win32" {
			exe += ".exe"
		}
		_, license := files["package/LICENSE"]
		if !files[exe] || !license {
			t.Errorf("%s: want an executable %s and LICENSE", platform, exe)
		}
		bin, err := exec.Command("tar", "-xzOf", tgz, exe).Output()
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(bin); pins.SHA256[platform] != hex.EncodeToString(sum[:]) {
			t.Errorf("binaries.json pins %s to %q, its tarball's binary is %x", platform, pins.SHA256[platform], sum)
		}
	}
}

// examples/node-service's suite, with a test that races its own teardown
// added (testdata/race.test.mjs), swept twice by a real `rewardsim sweep`
// as its docs teach (docs/node.md): the suite starts its own simulator and
// makes its own channels, and under the sweep attaches to the sweep's
// (issue 50, item 4); each row runs only the test files whose channels
// called fetchCouponCode in the baseline ({tests}); the TAP output names
// the failed tests; and the two sweeps grade alike, no row unsafe.
func TestNodeServiceSweep(t *testing.T) {
	t.Parallel()
	needTool(t, "npm")
	dir := nodeServiceProject(t, "testdata/race.test.mjs")
	node := nodeOf(t, "22")
	var first map[string]string
	for i := range 2 {
		out := t.TempDir()
		cmd := exec.Command(rewardsimBin, "sweep", "--parallel", "2", "--out", out, "--only", "fetchCouponCode",
			"--kinds", "internal-error,coupon-error:COUPON_EXHAUSTED,drop-connection", "--when", "every", "--",
			node, "--test", "--test-reporter=tap", "{tests|test/claim.test.mjs test/cards.test.mjs test/race.test.mjs}")
		cmd.Dir, cmd.Env = dir, hermeticEnv(t, node)
		timer := time.AfterFunc(4*time.Minute, func() { _ = cmd.Process.Kill() })
		stdout, err := cmd.Output()
		timer.Stop()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("sweep %d: %v\n%s%s", i+1, err, stdout, stderr)
		}
		raw, err := os.ReadFile(filepath.Join(out, "sweep.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Called []string
			Rows   []struct {
				ID, Grade string
				Only      []string
				Tests     *struct{ Ran int }
			}
		}
		if err := json.Unmarshal(raw, &rep); err != nil {
			t.Fatal(err)
		}
		// cards.test.mjs makes its channel like "DEMOBANK", the sweep's
		// --like: made like the run's channel, its calls are the run's.
		if !slices.Contains(rep.Called, "GetReward") {
			t.Errorf("sweep %d: the baseline called %v: not cards.test.mjs's GetReward", i+1, rep.Called)
		}
		grades := map[string]string{}
		for _, r := range rep.Rows {
			grades[r.ID] = r.Grade
			if r.Grade == "unsafe" || r.Grade == "not-reached" || r.Grade == "timed-out" {
				t.Errorf("sweep %d: row %s graded %s\n%s", i+1, r.ID, r.Grade, stdout)
			}
			if strings.Join(r.Only, " ") != "test/claim.test.mjs test/race.test.mjs" || r.Tests == nil || r.Tests.Ran == 0 {
				t.Errorf("sweep %d: row %s ran only %v (tests %+v); want the two files that claim, their TAP read", i+1, r.ID, r.Only, r.Tests)
			}
		}
		if len(grades) != 3 || i == 1 && !maps.Equal(grades, first) {
			t.Errorf("sweep %d graded %v; the first %v\n%s", i+1, grades, first, stdout)
		}
		first = grades
		t.Logf("sweep %d:\n%s", i+1, stdout)
	}
}

// nodePlatforms are the platform packages make node packs, as Node names them.
var nodePlatforms = []string{"linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64", "win32-arm64"}

// A team on Linux and macOS (issue 51, item 3), from the packed tarballs
// kept in the project (vendor/rewardsim), offline. The wrong recipe, every
// platform package a dependency, is a real install that fails with npm's
// EBADPLATFORM naming the foreign package and leaves nothing installed.
// docs/node.md's recipe, the platform packages as optionalDependencies,
// installs on Linux: npm skips the five foreign packages, the lockfile
// keeps all six for the macOS and Windows machines (npm ci), and the
// Linux binary runs, through the rewardsim command and startRewardsim().
func TestNodeMixedOSInstall(t *testing.T) {
	t.Parallel()
	needTool(t, "npm", "node")
	vendorTo := func(dir string) {
		if err := os.MkdirAll(filepath.Join(dir, "vendor", "rewardsim"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range append([]string{"rewardsim"}, prefixed("rewardsim-", nodePlatforms)...) {
			b, err := os.ReadFile(need(t, "../dist/node/"+name+".tgz", "make node"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "vendor", "rewardsim", name+".tgz"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	foreign := "darwin-arm64"
	if nodePlatform() == foreign {
		foreign = "linux-x64"
	}

	t.Run("dependencies: EBADPLATFORM", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		vendorTo(dir)
		if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"team","private":true}`), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("npm", "install", "--offline", "--no-audit", "--no-fund", "--save-dev", "./vendor/rewardsim/rewardsim.tgz",
			"./vendor/rewardsim/rewardsim-"+nodePlatform()+".tgz", "./vendor/rewardsim/rewardsim-"+foreign+".tgz")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "EBADPLATFORM") || !strings.Contains(string(out), "@rewardsim/"+foreign) {
			t.Fatalf("npm install of the %s tarball on %s: %v, want EBADPLATFORM naming it\n%s", foreign, nodePlatform(), err, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "rewardsim")); err == nil {
			t.Fatal("the failed install left rewardsim in node_modules")
		}
		t.Logf("the wrong recipe, as npm says it:\n%s", out)
	})

	t.Run("optionalDependencies", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		vendorTo(dir)
		optional := map[string]string{}
		for _, p := range nodePlatforms {
			optional["@rewardsim/"+p] = "file:vendor/rewardsim/rewardsim-" + p + ".tgz"
		}
		manifest, err := json.Marshal(map[string]any{"name": "team", "private": true, "type": "module",
			"devDependencies": map[string]string{"rewardsim": "file:vendor/rewardsim/rewardsim.tgz"}, "optionalDependencies": optional})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "package.json"), manifest, 0o644); err != nil {
			t.Fatal(err)
		}
		script := "import { startRewardsim } from \"rewardsim\";\nconst sim = await startRewardsim();\n" +
			"console.log(\"from \" + sim.process.from + \" \" + JSON.stringify(await sim.health()));\nawait sim.close();\n"
		if err := os.WriteFile(filepath.Join(dir, "start.mjs"), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
		env := []string{"REWARDSIM_BIN=", "REWARDSIM_URL=", "REWARDSIM_CONTROL_URL=", "REWARDSIM_CACHE=" + t.TempDir()}
		for _, install := range [][]string{
			{"install", "--offline", "--no-audit", "--no-fund"},
			{"ci", "--offline", "--no-audit", "--no-fund"}, // CI, from the lockfile the first install wrote
		} {
			out := run(t, dir, nil, 3*time.Minute, "npm", install...)
			installed, err := os.ReadDir(filepath.Join(dir, "node_modules", "@rewardsim"))
			if err != nil {
				t.Fatal(err)
			}
			if len(installed) != 1 || installed[0].Name() != nodePlatform() {
				t.Fatalf("npm %s installed %v under @rewardsim; want %s alone\n%s", install[0], installed, nodePlatform(), out)
			}
			lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
			if err != nil {
				t.Fatal(err)
			}
			var locked struct {
				Packages map[string]struct {
					Optional bool     `json:"optional"`
					OS       []string `json:"os"`
					Resolved string   `json:"resolved"`
				} `json:"packages"`
			}
			if err := json.Unmarshal(lock, &locked); err != nil {
				t.Fatal(err)
			}
			for _, p := range nodePlatforms {
				e, ok := locked.Packages["node_modules/@rewardsim/"+p]
				if !ok || !e.Optional || len(e.OS) != 1 || e.Resolved != "file:vendor/rewardsim/rewardsim-"+p+".tgz" {
					t.Errorf("npm %s: package-lock.json's @rewardsim/%s: %+v (present %v); want it optional, with its os, from vendor/", install[0], p, e, ok)
				}
			}
			if v := run(t, dir, env, time.Minute, "node_modules/.bin/rewardsim", "version"); !strings.HasPrefix(v, "rewardsim ") {
				t.Fatalf("npm %s: rewardsim version: %q", install[0], v)
			}
			if got := run(t, dir, env, time.Minute, "node", "start.mjs"); !strings.HasPrefix(got, "from @rewardsim/"+nodePlatform()+" ") {
				t.Fatalf("npm %s: startRewardsim: %q, want the binary of @rewardsim/%s", install[0], got, nodePlatform())
			}
		}
	})
}

func prefixed(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}
