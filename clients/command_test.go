package clients

// Issue 51, points 1, 2 and 7 (the cache): a Java or Node team runs the
// rewardsim command from the packed artefacts alone (java -jar
// rewardsim.jar <verb>, npx rewardsim <verb>), with no Go on PATH; both
// libraries pin every platform binary of their build and refuse one that
// differs by a byte; and the extracted-binary cache keeps only what is in
// use. Each drives the real binary the artefacts carry.

import (
	"archive/zip"
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// launch is one way a team runs the rewardsim command: the program and
// its first arguments, in a folder with an environment of its own.
type launch struct {
	name string
	argv []string
	dir  string
	env  []string
}

// javaLaunch is `java -jar lib/rewardsim.jar` in a project holding only the
// packed jars (the platform jar beside rewardsim.jar).
func javaLaunch(t *testing.T) (launch, javaProject) {
	p := newJavaProject(t)
	return launch{"java -jar", []string{filepath.Join(p.dir, "jdk", "java"), "-jar", filepath.Join(p.dir, "lib", "rewardsim.jar")}, p.dir, p.env}, p
}

// nodeLaunch is `npx --no rewardsim` (never a registry look-up) in a
// project that installed only the packed tarballs, with no Go on PATH.
func nodeLaunch(t *testing.T) (launch, string) {
	needTool(t, "npm")
	dir := npmProject(t, nil, nil)
	env := hermeticEnv(t, nodeOf(t, "22"))
	npx := lookIn(t, env, "npx")
	return launch{"npx", []string{npx, "--no", "rewardsim"}, dir, env}, dir
}

// lookIn finds name on the PATH of env (exec.LookPath reads this process's).
func lookIn(t *testing.T, env []string, name string) string {
	for _, kv := range env {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, d := range filepath.SplitList(path) {
				if p := filepath.Join(d, name); exists(p) {
					return p
				}
			}
		}
	}
	t.Fatalf("%s is not on the PATH of the test's environment", name)
	return ""
}

// exitOf runs the command and returns its standard output, standard error
// and exit status (-1 with the signal that ended it).
func (l launch) exitOf(t *testing.T, args ...string) (stdout, stderr string, status int, signal syscall.Signal) {
	t.Helper()
	cmd := exec.Command(l.argv[0], append(l.argv[1:], args...)...)
	cmd.Dir, cmd.Env = l.dir, l.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	timer := time.AfterFunc(2*time.Minute, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%s %s: %v", l.name, strings.Join(args, " "), err)
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return out.String(), errOut.String(), -1, ws.Signal()
	}
	return out.String(), errOut.String(), ws.ExitStatus(), 0
}

// Point 1: `java -jar rewardsim.jar version` and `npx rewardsim version`
// print the version of the binary the artefacts carry, and a verb that
// fails passes its exit status through (sweep without a command: 2).
func TestCommandFromPackedArtefacts(t *testing.T) {
	t.Parallel()
	launches := map[string]func(*testing.T) launch{
		"java": func(t *testing.T) launch { l, _ := javaLaunch(t); return l },
		"node": func(t *testing.T) launch { l, _ := nodeLaunch(t); return l },
	}
	version := regexp.MustCompile(`(?m)^rewardsim \S+\ncommit: \S+`)
	for name, make := range launches {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l := make(t)
			out, errOut, status, _ := l.exitOf(t, "version")
			if status != 0 || !version.MatchString(out) {
				t.Fatalf("%s version: status %d, stdout %q, stderr %q", l.name, status, out, errOut)
			}
			_, errOut, status, _ = l.exitOf(t, "sweep")
			if status != 2 || !strings.Contains(errOut, "no command") {
				t.Fatalf("%s sweep (no command): want status 2 and the verb's own error, got %d, stderr %q", l.name, status, errOut)
			}
		})
	}
}

// children lists the pids of pid's child processes (Linux: /proc).
func children(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(s); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// Point 1: signals pass through the command both ways. A SIGTERM to the
// launcher reaches the simulator (serve stops cleanly, and the launcher
// ends with what it ended with: node exits 0 as serve did, the JVM's
// shutdown exits 143); a simulator killed by a signal ends the launcher
// the same way (node dies of SIGKILL, java exits 128+9). The node launcher
// is node_modules/.bin/rewardsim itself (npx adds processes between).
func TestCommandPassesSignals(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	type want struct {
		status int
		signal syscall.Signal
	}
	for _, c := range []struct {
		name    string
		launch  func(*testing.T) launch
		term    want // after SIGTERM to the launcher
		killSim want // after SIGKILL to the simulator
	}{
		{"java", func(t *testing.T) launch { l, _ := javaLaunch(t); return l }, want{143, 0}, want{137, 0}},
		{"node", func(t *testing.T) launch {
			l, dir := nodeLaunch(t)
			l.argv = []string{filepath.Join(dir, "node_modules", ".bin", "rewardsim")}
			return l
		}, want{0, 0}, want{-1, syscall.SIGKILL}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			l := c.launch(t)
			for _, signalled := range []string{"launcher", "simulator"} {
				cmd := exec.Command(l.argv[0], append(l.argv[1:], "serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0",
					"--control-listen", "127.0.0.1:0", "--log-level", "error")...)
				cmd.Dir, cmd.Env, cmd.Stderr = l.dir, l.env, os.Stderr
				stdout, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = cmd.Process.Kill() })
				sc := bufio.NewScanner(stdout)
				listening := 0
				for listening < 2 && sc.Scan() {
					if strings.Contains(sc.Text(), " listening on ") {
						listening++
					}
				}
				go func() { _, _ = io.Copy(io.Discard, stdout) }()
				sims := children(cmd.Process.Pid)
				if listening < 2 || len(sims) != 1 {
					t.Fatalf("%s serve: %d listeners reported, children %v", c.name, listening, sims)
				}
				sim := sims[0]
				expect := c.term
				if signalled == "launcher" {
					err = cmd.Process.Signal(syscall.SIGTERM)
				} else {
					expect = c.killSim
					err = syscall.Kill(sim, syscall.SIGKILL)
				}
				if err != nil {
					t.Fatal(err)
				}
				_ = cmd.Wait()
				ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
				got := want{ws.ExitStatus(), 0}
				if ws.Signaled() {
					got = want{-1, ws.Signal()}
				}
				if got != expect {
					t.Errorf("%s, %s signalled: the launcher ended with %+v, want %+v", c.name, signalled, got, expect)
				}
				for start := time.Now(); alive(sim); time.Sleep(20 * time.Millisecond) {
					if time.Since(start) > 10*time.Second {
						_ = syscall.Kill(sim, syscall.SIGKILL)
						t.Fatalf("%s: the simulator %d outlived its launcher by 10 s", c.name, sim)
					}
				}
			}
		})
	}
}

// alterJar copies the platform jar src to dst with one byte of its binary
// changed and its own rewardsim.sha256 rewritten to match, so that only
// the library's pin can tell; it returns the altered binary's SHA-256.
func alterJar(t *testing.T, src, dst string) string {
	t.Helper()
	in, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := zip.NewWriter(f)
	dir := "io/github/rewardsim/bin/" + hostPlatform() + "/"
	var altered [32]byte
	for _, e := range in.File {
		if e.Name == dir+"rewardsim.sha256" {
			continue
		}
		b := readZip(t, e)
		if e.Name == dir+"rewardsim" {
			b[len(b)/2] ^= 0x01
			altered = sha256.Sum256(b)
		}
		out, err := w.CreateHeader(&zip.FileHeader{Name: e.Name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := out.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := w.Create(dir + "rewardsim.sha256")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(sum, hex.EncodeToString(altered[:])+"  rewardsim\n")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(altered[:])
}

func fileSHA256(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// startProgram is, for each library, a program that starts a simulator
// the way a test does and prints "started <binary>" or "error <message>".
const (
	javaStart = `public class Start {
    public static void main(String[] args) {
        try (io.github.rewardsim.RewardsimServer s = io.github.rewardsim.RewardsimServer.start()) {
            System.out.println("started " + s.pid().getAsLong());
        } catch (RuntimeException e) {
            System.out.println("error " + e.getMessage());
        }
    }
}
`
	nodeStart = `import { startRewardsim } from "rewardsim";
try { const sim = await startRewardsim(); console.log("started " + sim.process.binary); await sim.close(); }
catch (e) { console.log("error " + e.message); }
`
)

// Point 2: a platform binary altered by one byte is refused by both
// libraries before it runs, by the library and by the rewardsim command,
// with what was expected (the build's pin), what was found and where; and
// nothing of it reaches the cache.
func TestAlteredPlatformBinaryIsRefused(t *testing.T) {
	t.Parallel()
	t.Run("java", func(t *testing.T) {
		t.Parallel()
		l, p := javaLaunch(t)
		jar := filepath.Join(p.dir, "lib", "rewardsim-"+hostPlatform()+".jar")
		orig := need(t, "../dist/java/rewardsim-"+hostPlatform()+".jar", "make java")
		sum := sha256.Sum256(readZip(t, zipFiles(t, orig)["io/github/rewardsim/bin/"+hostPlatform()+"/rewardsim"]))
		want := hex.EncodeToString(sum[:])
		pins := string(readZip(t, zipFiles(t, need(t, "../dist/java/rewardsim.jar", "make java"))["io/github/rewardsim/binaries.sha256"]))
		if !strings.Contains(pins, want+"  "+hostPlatform()+"/rewardsim") {
			t.Fatalf("rewardsim.jar's pins do not hold this build's binary %s:\n%s", want, pins)
		}
		got := alterJar(t, orig, jar)
		src := filepath.Join(p.dir, "Start.java")
		if err := os.WriteFile(src, []byte(javaStart), 0o644); err != nil {
			t.Fatal(err)
		}
		classes := p.compile(t, "start", []string{src})
		lib := filepath.Join(p.dir, "lib", "rewardsim.jar")
		library := p.run(t, time.Minute, "java", "-cp", classes+":"+lib+":"+jar, "Start")
		_, command, status, _ := l.exitOf(t, "version")
		if status != 127 {
			t.Errorf("java -jar rewardsim.jar version with the altered jar: status %d, want 127", status)
		}
		for what, msg := range map[string]string{"the library": library, "the command": command} {
			for _, part := range []string{"refusing the rewardsim binary", "its SHA-256 is " + got, "was built with " + want, jar} {
				if !strings.Contains(msg, part) {
					t.Errorf("%s: the refusal lacks %q:\n%s", what, part, msg)
				}
			}
		}
		if entries, _ := os.ReadDir(filepath.Join(p.dir, "cache")); len(entries) != 0 {
			t.Errorf("the refused binary left %v in the cache", entries)
		}
	})
	t.Run("node", func(t *testing.T) {
		t.Parallel()
		l, dir := nodeLaunch(t)
		bin := filepath.Join(dir, "node_modules", "@rewardsim", nodePlatform(), "bin", "rewardsim")
		want := fileSHA256(t, bin)
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0x01
		if err := os.WriteFile(bin, b, 0o755); err != nil {
			t.Fatal(err)
		}
		got := fileSHA256(t, bin)
		if err := os.WriteFile(filepath.Join(dir, "start.mjs"), []byte(nodeStart), 0o644); err != nil {
			t.Fatal(err)
		}
		library := runIn(t, dir, l.env, time.Minute, nodeOf(t, "22"), "start.mjs")
		_, command, status, _ := l.exitOf(t, "version")
		if status != 127 {
			t.Errorf("npx rewardsim version with the altered binary: status %d, want 127", status)
		}
		for what, msg := range map[string]string{"the library": library, "the command": command} {
			for _, part := range []string{"refusing the simulator binary of @rewardsim/" + nodePlatform(), "its SHA-256 is " + got, "was built with " + want, bin} {
				if !strings.Contains(msg, part) {
					t.Errorf("%s: the refusal lacks %q:\n%s", what, part, msg)
				}
			}
			if strings.Contains(msg, "npm install @rewardsim") || strings.Contains(msg, "npm install --save-dev @rewardsim") {
				t.Errorf("%s advises installing an unpublished public name:\n%s", what, msg)
			}
		}
	})
}

// envValue is name's value in env.
func envValue(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if rest, ok := strings.CutPrefix(kv, name+"="); ok {
			v = rest
		}
	}
	return v
}

// Point 7: the extracted-binary cache keeps only binaries in use. A start
// removes the folders of other builds whose binary nobody started for a
// day, keeps one another build started a moment ago (another process may
// be running it) and anything not named by a digest, and keeps its own.
func TestBinaryCacheKeepsWhatIsInUse(t *testing.T) {
	t.Parallel()
	old, recent := strings.Repeat("a", 64), strings.Repeat("b", 64)
	for _, c := range []struct {
		name string
		// start runs a start of the library; it returns the cache's
		// folder of binaries and the output of the start.
		start func(t *testing.T, prepare func(bins string)) (string, string)
	}{
		{"java", func(t *testing.T, prepare func(string)) (string, string) {
			_, p := javaLaunch(t)
			bins := envValue(p.env, "REWARDSIM_CACHE")
			prepare(bins)
			src := filepath.Join(p.dir, "Start.java")
			if err := os.WriteFile(src, []byte(javaStart), 0o644); err != nil {
				t.Fatal(err)
			}
			return bins, p.run(t, time.Minute, "java", "-cp", p.compile(t, "start", []string{src})+":"+p.classpath, "Start")
		}},
		{"node", func(t *testing.T, prepare func(string)) (string, string) {
			l, dir := nodeLaunch(t)
			bins := filepath.Join(envValue(l.env, "REWARDSIM_CACHE"), "bin")
			prepare(bins)
			if err := os.WriteFile(filepath.Join(dir, "start.mjs"), []byte(nodeStart), 0o644); err != nil {
				t.Fatal(err)
			}
			return bins, runIn(t, dir, l.env, time.Minute, nodeOf(t, "22"), "start.mjs")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			twoDaysAgo := time.Now().Add(-48 * time.Hour)
			bins, out := c.start(t, func(bins string) {
				// Java: an extraction a killed JVM left half done goes too.
				if c.name == "java" {
					if err := os.MkdirAll(bins, 0o755); err != nil {
						t.Fatal(err)
					}
					part := filepath.Join(bins, "rewardsim-123.part")
					if err := os.WriteFile(part, []byte("half"), 0o644); err != nil || os.Chtimes(part, twoDaysAgo, twoDaysAgo) != nil {
						t.Fatal(err)
					}
				}
				for name, when := range map[string]time.Time{old: twoDaysAgo, recent: time.Now(), "mine": twoDaysAgo} {
					bin := filepath.Join(bins, name, "rewardsim")
					if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(bin, []byte("another build"), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.Chtimes(bin, when, when); err != nil {
						t.Fatal(err)
					}
				}
			})
			if !strings.Contains(out, "started ") {
				t.Fatalf("the start failed: %s", out)
			}
			entries, err := os.ReadDir(bins)
			if err != nil {
				t.Fatal(err)
			}
			var left []string
			for _, e := range entries {
				left = append(left, e.Name())
			}
			if len(left) != 3 || exists(filepath.Join(bins, old)) || !exists(filepath.Join(bins, recent)) || !exists(filepath.Join(bins, "mine")) {
				t.Errorf("the cache holds %v: want its own build's folder, %s (started a moment ago) and mine, not %s (unused for two days)", left, recent[:8]+"...", old[:8]+"...")
			}
		})
	}
}

// The programs of TestLibrariesNameTheCause: attach where nothing listens,
// then verify an operation name with a typo on a simulator of their own.
const (
	javaCause = `import io.github.rewardsim.*;
public class Cause {
    public static void main(String[] args) throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String url = "http://127.0.0.1:" + port;
        try {
            RewardsimServer.attach(url, url);
            System.out.println("attach: attached");
        } catch (RuntimeException e) {
            System.out.println("attach: " + e.getMessage());
        }
        try (RewardsimServer s = RewardsimServer.start()) {
            s.newChannel().verify("fetchCoupon").never();
            System.out.println("verify: passed");
        } catch (RuntimeException e) {
            System.out.println("verify: " + e.getMessage());
        }
    }
}
`
	nodeCause = `import { createServer } from "node:net";
import { attachRewardsim, startRewardsim } from "rewardsim";
const port = await new Promise((r) => { const s = createServer().listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => r(p)); }); });
const url = "http://127.0.0.1:" + port;
try { await attachRewardsim(url, url); console.log("attach: attached"); } catch (e) { console.log("attach: " + e.message); }
const sim = await startRewardsim();
try { await (await sim.newChannel()).verify({ endpoint: "fetchCoupon", never: true }); console.log("verify: passed"); }
catch (e) { console.log("verify: " + e.message); }
await sim.close();
`
)

// Point 7: errors that name the cause, in both libraries. Attaching where
// nothing listens says the URL and "connection refused" (Java said
// "GET /__sim/health: null"); an unknown operation name gets a
// did-you-mean and the whole list of names, not one cut mid-name.
func TestLibrariesNameTheCause(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, out string) {
		lines := map[string]string{}
		for _, line := range strings.Split(out, "\n") {
			if k, v, ok := strings.Cut(line, ": "); ok && (k == "attach" || k == "verify") {
				lines[k] = v
			}
		}
		attach := regexp.MustCompile(`GET /__sim/health at http://127\.0\.0\.1:\d+/__sim/health: connection refused`)
		if !attach.MatchString(lines["attach"]) {
			t.Errorf("attach where nothing listens: %q, want the URL and connection refused", lines["attach"])
		}
		verify := lines["verify"]
		if !strings.Contains(verify, `endpoint "fetchCoupon" is not an operation name (did you mean fetchCouponCode?)`) ||
			!strings.Contains(verify, "sendRewardCardRequest, or a path") {
			t.Errorf("verify of an unknown operation: %q, want a did-you-mean and every name", verify)
		}
	}
	t.Run("java", func(t *testing.T) {
		t.Parallel()
		p := newJavaProject(t)
		src := filepath.Join(p.dir, "Cause.java")
		if err := os.WriteFile(src, []byte(javaCause), 0o644); err != nil {
			t.Fatal(err)
		}
		check(t, p.run(t, time.Minute, "java", "-cp", p.compile(t, "cause", []string{src})+":"+p.classpath, "Cause"))
	})
	t.Run("node", func(t *testing.T) {
		t.Parallel()
		l, dir := nodeLaunch(t)
		if err := os.WriteFile(filepath.Join(dir, "cause.mjs"), []byte(nodeCause), 0o644); err != nil {
			t.Fatal(err)
		}
		check(t, runIn(t, dir, l.env, time.Minute, nodeOf(t, "22"), "cause.mjs"))
	})
}

// The "done when" (issue 51): a Go-less Java project and a
// Go-less Node project, holding only the packed artefacts, sweep their own
// suite and report on it with the rewardsim command they installed
// (java -jar rewardsim.jar, npx rewardsim): the command serves a
// simulator, sweeps the example service's suite against it (--control),
// then a suite attached to it (Java: the example service's, through
// REWARDSIM_URL; Node: a file that attachRewardsim()s, as docs/node.md's
// globalSetup recipe does: a sweep's channels go with the sweep) leaves
// its journal there, and the command prints its conformance report.
func TestGoLessSweepAndReport(t *testing.T) {
	t.Parallel()
	type project struct {
		l               launch
		swept, attached []string // the suite as the sweep runs it; a suite attached to REWARDSIM_URL
	}
	cases := map[string]func(t *testing.T) project{
		"java": func(t *testing.T) project {
			l, p := javaLaunch(t)
			tests, main := p.exampleService(t)
			suite := []string{"/bin/sh", "-c", `exec java -jar /usr/share/java/junit-platform-console-standalone.jar -cp "$0" ` +
				`--select-package rewards.service --disable-banner --disable-ansi-colors`, tests + ":" + main + ":" + p.classpath}
			return project{l, suite, suite}
		},
		"node": func(t *testing.T) project {
			needTool(t, "npm")
			node := nodeOf(t, "22")
			env := hermeticEnv(t, node)
			dir := nodeServiceProject(t)
			attached := `import { test } from "node:test";
import { attachRewardsim } from "rewardsim";
test("a claim on the served simulator", async () => {
  const sim = await attachRewardsim();   // REWARDSIM_URL, REWARDSIM_CONTROL_URL
  const ch = await sim.newChannel();
  await ch.publisher.fetchCoupon({ offerId: "OFFER-DEMO", virtualId: "VU-1", extTransactionId: "T-1", coinsUsed: 100 });
});
`
			if err := os.WriteFile(filepath.Join(dir, "test", "attached.test.mjs"), []byte(attached), 0o644); err != nil {
				t.Fatal(err)
			}
			return project{launch{"npx", []string{lookIn(t, env, "npx"), "--no", "rewardsim"}, dir, env},
				[]string{"node", "--test", "--test-reporter=tap", "{tests|test/claim.test.mjs test/cards.test.mjs}"},
				[]string{node, "--test", "test/attached.test.mjs"}}
		},
	}
	for name, setUp := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := setUp(t)
			l := p.l
			if _, err := exec.Command("env", append(append([]string{"-i"}, l.env...), "sh", "-c", "command -v go")...).Output(); err == nil {
				t.Fatal("go is on the project's PATH")
			}
			public, control, stop := startServeWith(t, l.argv, l.dir, l.env, filepath.Join(t.TempDir(), "data"))
			defer stop()
			out := t.TempDir()
			stdout, stderr, status, _ := l.exitOf(t, append([]string{"sweep", "--control", control, "--url", public,
				"--out", out, "--only", "fetchCouponCode", "--kinds", "internal-error", "--when", "every", "--"}, p.swept...)...)
			if status != 0 {
				t.Fatalf("%s sweep: status %d\n%s%s", l.name, status, stdout, stderr)
			}
			raw, err := os.ReadFile(filepath.Join(out, "sweep.json"))
			if err != nil {
				t.Fatal(err)
			}
			var rep struct {
				Rows []struct{ ID, Grade string }
			}
			if err := json.Unmarshal(raw, &rep); err != nil || len(rep.Rows) != 1 {
				t.Fatalf("%s sweep: %d rows (%v)\n%s", l.name, len(rep.Rows), err, stdout)
			}
			suite := exec.Command(p.attached[0], p.attached[1:]...)
			suite.Dir, suite.Env = l.dir, append(slices.Clone(l.env), "REWARDSIM_URL="+public, "REWARDSIM_CONTROL_URL="+control)
			if b, err := suite.CombinedOutput(); err != nil {
				t.Fatalf("the suite attached to the served simulator: %v\n%s", err, b)
			}
			junit := filepath.Join(t.TempDir(), "report.xml")
			stdout, stderr, status, _ = l.exitOf(t, "report", "--control", control, "--fail-on", "none", "--junit", junit)
			m := regexp.MustCompile(`conformance report: (\d+) exchanges, (\d+) finding`).FindStringSubmatch(stdout)
			if status != 0 || m == nil || m[1] == "0" || !exists(junit) {
				t.Fatalf("%s report: status %d, junit written %v\n%s%s", l.name, status, exists(junit), stdout, stderr)
			}
			t.Logf("%s: sweep row %s graded %s; %s", l.name, rep.Rows[0].ID, rep.Rows[0].Grade, m[0])
		})
	}
}
