package clients

// Issues 39 and 40 for Java: the packed artefacts of `make java` (the
// library, its -javadoc and -sources jars, one jar per platform carrying
// the simulator), used from a project that has no Go toolchain and no
// REWARDSIM_BIN; the example publisher service's own suite; docs/java.md's
// examples; and a simulator that dies with a JVM killed by SIGKILL. Each
// drives a real `rewardsim serve`, extracted from the platform jar.

import (
	"archive/zip"
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
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

var javaPlatforms = []string{"linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64", "windows-amd64", "windows-arm64"}

// Debian's JUnit API jars: what a test class compiles against.
var junitAPI = []string{"/usr/share/java/junit-jupiter-api.jar", "/usr/share/java/apiguardian-api.jar", "/usr/share/java/opentest4j.jar"}

func zipFiles(t *testing.T, path string) map[string]*zip.File {
	t.Helper()
	r, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	files := map[string]*zip.File{}
	for _, f := range r.File {
		files[f.Name] = f
	}
	return files
}

func readZip(t *testing.T, f *zip.File) []byte {
	t.Helper()
	rc, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every jar carries LICENSE and a manifest naming its module and version;
// each platform jar its binary and the SHA-256 the library checks; the
// POM names every platform's classifier.
func TestJavaArtefacts(t *testing.T) {
	t.Parallel()
	jars := map[string]string{"rewardsim.jar": "io.github.rewardsim", "rewardsim-sources.jar": "io.github.rewardsim", "rewardsim-javadoc.jar": "io.github.rewardsim"}
	for _, p := range javaPlatforms {
		jars["rewardsim-"+p+".jar"] = "io.github.rewardsim." + strings.ReplaceAll(p, "-", ".")
	}
	for name, module := range jars {
		files := zipFiles(t, need(t, "../dist/java/"+name, "make java"))
		if files["META-INF/LICENSE"] == nil {
			t.Errorf("%s: no META-INF/LICENSE", name)
		}
		mf, ok := files["META-INF/MANIFEST.MF"]
		if !ok {
			t.Fatalf("%s: no manifest", name)
		}
		m := string(readZip(t, mf))
		if !strings.Contains(m, "Automatic-Module-Name: "+module+"\r\n") || !regexp.MustCompile(`Implementation-Version: \d+\.\d+\.\d+`).MatchString(m) {
			t.Errorf("%s: manifest lacks its module name %s or a version:\n%s", name, module, m)
		}
		if main := strings.Contains(m, "Main-Class: io.github.rewardsim.Main\r\n"); main != (name == "rewardsim.jar") {
			t.Errorf("%s: Main-Class io.github.rewardsim.Main (the rewardsim command) present %v, want it in rewardsim.jar alone", name, main)
		}
	}
	if files := zipFiles(t, "../dist/java/rewardsim-javadoc.jar"); files["io/github/rewardsim/ChannelCredentials.html"] == nil {
		t.Error("rewardsim-javadoc.jar has no page for ChannelCredentials")
	}
	// Issue 51: the library pins every platform binary of its build.
	pins := string(readZip(t, zipFiles(t, "../dist/java/rewardsim.jar")["io/github/rewardsim/binaries.sha256"]))
	for _, p := range javaPlatforms {
		exe := "rewardsim"
		if strings.HasPrefix(p, "windows") {
			exe += ".exe"
		}
		files := zipFiles(t, "../dist/java/rewardsim-"+p+".jar")
		dir := "io/github/rewardsim/bin/" + p + "/"
		bin, sum := files[dir+exe], files[dir+"rewardsim.sha256"]
		if bin == nil || sum == nil {
			t.Fatalf("rewardsim-%s.jar lacks %s or %s", p, dir+exe, dir+"rewardsim.sha256")
		}
		got := sha256.Sum256(readZip(t, bin))
		if want := strings.Fields(string(readZip(t, sum)))[0]; want != hex.EncodeToString(got[:]) {
			t.Errorf("rewardsim-%s.jar: checksum %s, binary %x", p, want, got)
		}
		if pin := fmt.Sprintf("%x  %s/%s\n", got, p, exe); !strings.Contains(pins, pin) {
			t.Errorf("rewardsim.jar's binaries.sha256 lacks %q:\n%s", pin, pins)
		}
	}
	pom, err := os.ReadFile("../dist/java/pom.xml")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range javaPlatforms {
		if !strings.Contains(string(pom), "<classifier>"+p+"</classifier>") {
			t.Errorf("pom.xml does not name the platform artefact %s", p)
		}
	}
}

func hostPlatform() string { return runtime.GOOS + "-" + runtime.GOARCH }

// javaProject is a folder as a team's build would lay it out with only the
// packed artefacts: lib/ holds the library and the host's platform jar,
// jdk/ links to java and javac, and env is a PATH of jdk/ alone (no Go, no
// rewardsim), no REWARDSIM_* setting, a cache and a temp folder of its own.
type javaProject struct {
	dir, classpath string
	env            []string
}

func newJavaProject(t *testing.T) javaProject {
	t.Helper()
	needTool(t, "java", "javac")
	need(t, "/usr/share/java/junit-platform-console-standalone.jar", "make java-deps")
	dir := t.TempDir()
	for _, d := range []string{"lib", "jdk", "tmp", "cache", "home"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cp := []string{}
	for _, jar := range []string{"rewardsim.jar", "rewardsim-" + hostPlatform() + ".jar"} {
		b, err := os.ReadFile(need(t, "../dist/java/"+jar, "make java"))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, "lib", jar)
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
		cp = append(cp, dst)
	}
	for _, tool := range []string{"java", "javac"} {
		p, _ := exec.LookPath(tool)
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(real, filepath.Join(dir, "jdk", tool)); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"PATH=" + filepath.Join(dir, "jdk"), "HOME=" + filepath.Join(dir, "home"), "REWARDSIM_CACHE=" + filepath.Join(dir, "cache"),
		"JAVA_TOOL_OPTIONS=-Djava.io.tmpdir=" + filepath.Join(dir, "tmp")}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != "PATH" && k != "HOME" && k != "JAVA_TOOL_OPTIONS" && !strings.HasPrefix(k, "REWARDSIM_") && !strings.HasPrefix(k, "GO") {
			env = append(env, kv)
		}
	}
	return javaProject{dir: dir, classpath: strings.Join(cp, ":"), env: env}
}

// run runs a JDK tool of the project with its environment alone.
func (p javaProject) run(t *testing.T, timeout time.Duration, tool string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(p.dir, "jdk", tool), args...)
	cmd.Dir, cmd.Env = p.dir, p.env
	timer := time.AfterFunc(timeout, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", tool, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func javaSources(t *testing.T, roots ...string) []string {
	var out []string
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".java") {
				abs, _ := filepath.Abs(p)
				out = append(out, abs)
			}
			return err
		})
	}
	if len(out) == 0 {
		t.Fatalf("no Java sources under %v", roots)
	}
	return out
}

// compile compiles sources into the project's folder out, against the
// packed jars, Debian's JUnit API and extra class folders.
func (p javaProject) compile(t *testing.T, out string, sources []string, extra ...string) string {
	t.Helper()
	dst := filepath.Join(p.dir, out)
	cp := strings.Join(append(append([]string{p.classpath}, junitAPI...), extra...), ":")
	p.run(t, 3*time.Minute, "javac", append([]string{"--release", "17", "-encoding", "UTF-8", "-d", dst, "-cp", cp}, sources...)...)
	return dst
}

// junit runs the console launcher on classes with the project's
// environment; it fails the test unless every test passed and at least
// min ran.
func (p javaProject) junit(t *testing.T, classes string, min int, selectors ...string) string {
	t.Helper()
	args := append([]string{"-jar", "/usr/share/java/junit-platform-console-standalone.jar", "-cp", classes + ":" + p.classpath,
		"--disable-banner", "--disable-ansi-colors", "--details=tree", "--fail-if-no-tests"}, selectors...)
	cmd := exec.Command(filepath.Join(p.dir, "jdk", "java"), args...)
	cmd.Dir, cmd.Env = p.dir, p.env
	timer := time.AfterFunc(5*time.Minute, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	out, _ := cmd.CombinedOutput()
	counts := map[string]int{}
	for _, m := range junitCount.FindAllStringSubmatch(string(out), -1) {
		counts[m[2]], _ = strconv.Atoi(m[1])
	}
	if counts["failed"] != 0 || counts["successful"] < min {
		t.Fatalf("JUnit: %v (want %d or more successful, none failed)\n%s", counts, min, out)
	}
	t.Logf("JUnit: %d tests successful", counts["successful"])
	return string(out)
}

// exampleService compiles examples/java-service against the packed jars:
// its test classes (with their junit-platform.properties) and its main ones.
func (p javaProject) exampleService(t *testing.T) (tests, main string) {
	t.Helper()
	main = p.compile(t, "main", javaSources(t, "../examples/java-service/src/main/java"))
	tests = p.compile(t, "test", javaSources(t, "../examples/java-service/src/test/java"), main)
	props, err := os.ReadFile("../examples/java-service/src/test/resources/junit-platform.properties")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tests, "junit-platform.properties"), props, 0o644); err != nil {
		t.Fatal(err)
	}
	return tests, main
}

// The example publisher service (examples/java-service), tested as its
// team would: its two test classes in parallel, from the packed jars only;
// the simulator comes out of the platform jar into the project's cache.
func TestJavaServiceExample(t *testing.T) {
	t.Parallel()
	p := newJavaProject(t)
	tests, main := p.exampleService(t)
	p.junit(t, tests+":"+main, 9, "--select-package", "rewards.service")
	if entries, _ := os.ReadDir(filepath.Join(p.dir, "tmp")); len(entries) != 0 {
		t.Errorf("the run left %d entries in its temp folder: %v", len(entries), entries)
	}
}

var javaBlock = regexp.MustCompile("(?s)(<!-- doctest: skip \\([^)]+\\) -->\n)?```java\n(.*?)```")
var javaClass = regexp.MustCompile(`(?m)^(?:public |final )*class (\w+)`)

// Every ```java example of docs/java.md (less those marked skip) is a
// whole test class: compiled against the packed jars and the example
// service, and run.
func TestJavaDocs(t *testing.T) {
	t.Parallel()
	md, err := os.ReadFile("../docs/java.md")
	if err != nil {
		t.Fatal(err)
	}
	p := newJavaProject(t)
	src := filepath.Join(p.dir, "docs")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	var files, selectors []string
	for _, m := range javaBlock.FindAllStringSubmatch(string(md), -1) {
		if m[1] != "" {
			continue
		}
		c := javaClass.FindStringSubmatch(m[2])
		if c == nil {
			t.Fatalf("a java example of docs/java.md is not a whole class (mark it <!-- doctest: skip (reason) -->):\n%s", m[2])
		}
		f := filepath.Join(src, c[1]+".java")
		if err := os.WriteFile(f, []byte(m[2]), 0o644); err != nil {
			t.Fatal(err)
		}
		files, selectors = append(files, f), append(selectors, "--select-class", c[1])
	}
	if len(files) < 2 {
		t.Fatalf("docs/java.md has %d runnable java examples", len(files))
	}
	main := p.compile(t, "main", javaSources(t, "../examples/java-service/src/main/java"))
	classes := p.compile(t, "doc-classes", files, main)
	p.junit(t, classes+":"+main, len(files), selectors...)
}

// kill -9 of a test JVM running a simulator: within 2 s its rewardsim
// process is gone and so is its data folder (serve --exit-on-stdin-eof
// --remove-data-on-exit, the pipe closed by the OS). A start that fails
// leaves no folder behind; with no binary to be found, the error names the
// platform artefact to add.
func TestJavaSimulatorDiesWithTheJVM(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	p := newJavaProject(t)
	hold := filepath.Join(p.dir, "Hold.java")
	err := os.WriteFile(hold, []byte(`import io.github.rewardsim.RewardsimServer;
import java.util.List;
public class Hold {
    public static void main(String[] args) throws Exception {
        for (String bad : new String[] {"/nonexistent/rewardsim", "/bin/false"}) {
            try {
                RewardsimServer.start(bad, List.of());
                throw new AssertionError("started " + bad);
            } catch (RuntimeException expected) {
                System.out.println("failed start: " + expected.getMessage().lines().findFirst().orElse(""));
            }
        }
        RewardsimServer s = RewardsimServer.start();
        s.newChannel().publisher().fetchCoupon("OFFER-DEMO", "VU-K", "T-K", 100);
        System.out.println("serve pid=" + s.pid().getAsLong() + " data=" + s.dataDir().get());
        Thread.sleep(120_000);
    }
}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	noBinary := filepath.Join(p.dir, "NoBinary.java")
	err = os.WriteFile(noBinary, []byte(`public class NoBinary {
    public static void main(String[] args) {
        try {
            io.github.rewardsim.RewardsimServer.start();
        } catch (IllegalStateException e) {
            System.out.println(e.getMessage());
        }
    }
}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	classes := p.compile(t, "hold", []string{hold, noBinary})

	// Without the platform jar, no setting and nothing on PATH: the error
	// names the artefact to add.
	lib := filepath.Join(p.dir, "lib", "rewardsim.jar")
	msg := p.run(t, time.Minute, "java", "-cp", classes+":"+lib, "NoBinary")
	if want := "io.github.rewardsim:rewardsim:"; !strings.Contains(msg, want) || !strings.Contains(msg, ":"+hostPlatform()) {
		t.Errorf("without a binary: want an error naming %s...:%s, got:\n%s", want, hostPlatform(), msg)
	}

	cmd := exec.Command(filepath.Join(p.dir, "jdk", "java"), "-cp", classes+":"+p.classpath, "Hold")
	cmd.Dir, cmd.Env, cmd.Stderr = p.dir, p.env, os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var pid int
	var data string
	sc := bufio.NewScanner(out)
	timer := time.AfterFunc(2*time.Minute, func() { _ = cmd.Process.Kill() })
	for pid == 0 && sc.Scan() {
		line := sc.Text()
		t.Log(line)
		if _, err := fmt.Sscanf(line, "serve pid=%d data=%s", &pid, &data); err != nil {
			pid = 0
		}
	}
	timer.Stop()
	if pid == 0 {
		t.Fatal("the JVM did not report its simulator")
	}
	if left := rewardsimTemp(t, p); len(left) != 1 {
		t.Fatalf("before the kill: want the running simulator's folder alone in the temp folder, found %v", left)
	}
	killed := time.Now()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for !gone(pid) || exists(data) {
		if time.Since(killed) > 2*time.Second {
			t.Fatalf("2 s after kill -9 of the JVM: rewardsim %d gone %v, data folder %s still there %v", pid, gone(pid), data, exists(data))
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("simulator and data folder gone %v after kill -9", time.Since(killed).Round(time.Millisecond))
	if left := rewardsimTemp(t, p); len(left) != 0 {
		t.Errorf("left in the temp folder: %v", left)
	}
}

func rewardsimTemp(t *testing.T, p javaProject) []string {
	left, err := filepath.Glob(filepath.Join(p.dir, "tmp", "rewardsim-*"))
	if err != nil {
		t.Fatal(err)
	}
	return left
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// gone reports whether pid has exited: no such process, or a zombie
// waiting for a PID 1 that may never reap it.
func gone(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// startServe runs `rewardsim serve` on data with free loopback ports and
// returns its public and control URLs and a stop that waits for its exit.
func startServe(t *testing.T, data string) (public, control string, stop func()) {
	t.Helper()
	return startServeWith(t, []string{rewardsimBin}, "", nil, data)
}

// startServeWith is startServe through a launcher (argv: the rewardsim
// command as a team runs it, e.g. java -jar rewardsim.jar) in dir with env
// (nil: this process's). It holds a pipe on serve's standard input
// (--exit-on-stdin-eof), which every launcher passes on: stop closes it
// and waits, whatever sits between this process and the binary.
func startServeWith(t *testing.T, argv []string, dir string, env []string, data string) (public, control string, stop func()) {
	t.Helper()
	cmd := exec.Command(argv[0], append(argv[1:], "serve", "--data", data, "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0",
		"--log-level", "error", "--exit-on-stdin-eof")...)
	cmd.Dir, cmd.Env = dir, env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop = func() {
		_ = stdin.Close()
		timer := time.AfterFunc(30*time.Second, func() { _ = cmd.Process.Kill() })
		_ = cmd.Wait()
		timer.Stop()
	}
	listening := regexp.MustCompile(`^rewardsim: (\S+) listening on (\S+)$`)
	sc := bufio.NewScanner(out)
	for (public == "" || control == "") && sc.Scan() {
		if m := listening.FindStringSubmatch(strings.TrimSpace(sc.Text())); m != nil {
			if m[1] == "all" {
				public = m[2]
			} else if m[1] == "control" {
				control = m[2]
			}
		}
	}
	if public == "" || control == "" {
		stop()
		t.Fatal("rewardsim serve did not report its listeners")
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return public, control, stop
}

// A channel made with the team's own key and webhook URL keeps both
// through reset, a clock move and a restart of the simulator: the team's
// service still signs with its key afterwards.
func TestJavaOwnKeySurvivesARestart(t *testing.T) {
	t.Parallel()
	needTool(t, "java", "javac")
	jar := need(t, "../dist/java/rewardsim.jar", "make java")
	dir := t.TempDir()
	src := filepath.Join(dir, "OwnKey.java")
	err := os.WriteFile(src, []byte(`import io.github.rewardsim.*;
import java.net.URI;
import java.net.http.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.security.*;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.*;
public class OwnKey {
    public static void main(String[] args) throws Exception {
        RewardsimServer s = RewardsimServer.attach(args[1], args[2]);
        String pem = Files.readString(Path.of(args[3]));
        if (args[0].equals("make")) {
            Channel ch = s.newChannel(ChannelSpec.like("DEMOBANK").name("T-OWN-RESTART").privateKeyPem(pem).webhookUrl("http://127.0.0.1:9/own"));
            ch.reset();
            ch.advanceClock(Duration.ofHours(3));
            System.out.println("made " + ch.name());
            return;
        }
        Map<?, ?> info = (Map<?, ?>) s.control("GET", "/__sim/channels/T-OWN-RESTART", null);
        if (!"http://127.0.0.1:9/own".equals(info.get("webhookUrl"))) throw new AssertionError("webhookUrl after the restart: " + info);
        PrivateKey key = KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(
            Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""))));
        String bdata = Base64.getEncoder().encodeToString("{\"bName\":\"T-OWN-RESTART\"}".getBytes(StandardCharsets.UTF_8));
        Signature sig = Signature.getInstance("SHA256withRSA");
        sig.initSign(key);
        sig.update(bdata.getBytes(StandardCharsets.US_ASCII));
        String env = Json.write(Map.of("CHANNELID", "T-OWN-RESTART", "SIGN", Base64.getEncoder().encodeToString(sig.sign()), "BDATA", bdata));
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(args[1] + "/api/getSecuredReferenceToken"))
            .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(env)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200 || !r.body().contains("BDATA")) throw new AssertionError("the team's key after the restart: " + r.statusCode() + " " + r.body());
        System.out.println("checked");
    }
}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, "team.key") // PKCS#8 PEM
	run(t, dir, nil, time.Minute, rewardsimBin, "keys", "--out", dir, "--name", "team", "--cn", "T-OWN-RESTART")
	if _, err := os.Stat(key); err != nil {
		t.Fatalf("rewardsim keys wrote no %s: %v", key, err)
	}
	run(t, dir, nil, 2*time.Minute, "javac", "--release", "17", "-d", dir, "-cp", jar, src)
	data := filepath.Join(dir, "data")
	public, control, stop := startServe(t, data)
	run(t, dir, nil, time.Minute, "java", "-cp", dir+":"+jar, "OwnKey", "make", public, control, key)
	stop()
	public, control, stop = startServe(t, data)
	defer stop()
	run(t, dir, nil, time.Minute, "java", "-cp", dir+":"+jar, "OwnKey", "check", public, control, key)
}

// The example service's JUnit 5 suite under a real `rewardsim sweep`,
// unchanged, from the packed jars (issue 50): the extension attaches to
// the sweep's simulator, names each channel after its test class or
// method (a channel a test makes itself after that test), and in each
// row runs only the tests that called the row's endpoint in the baseline
// (REWARDSIM_SWEEP_TESTS, an execution condition); the console
// launcher's JUnit XML in REWARDSIM_SWEEP_REPORTS names the tests that
// failed.
func TestJavaServiceSweep(t *testing.T) {
	t.Parallel()
	p := newJavaProject(t)
	tests, main := p.exampleService(t)
	out := t.TempDir()
	suite := `exec java -jar /usr/share/java/junit-platform-console-standalone.jar -cp "$0" --select-package rewards.service ` +
		`--disable-banner --disable-ansi-colors --reports-dir "$REWARDSIM_SWEEP_REPORTS"`
	cmd := exec.Command(rewardsimBin, "sweep", "--parallel", "2", "--out", out, "--only", "fetchCouponCode,GetReward", "--kinds", "internal-error",
		"--when", "every", "--", "/bin/sh", "-c", suite, tests+":"+main+":"+p.classpath)
	cmd.Dir, cmd.Env = p.dir, p.env
	timer := time.AfterFunc(4*time.Minute, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	stdout, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sweep: %v\n%s", err, stdout)
	}
	raw, err := os.ReadFile(filepath.Join(out, "sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Rows []struct {
			ID, Endpoint, Grade string
			Only                []string
			Tests               *struct {
				Failed []struct{ Name, Report string }
			}
		}
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	claims := "rewards.service.CouponClaimTest#"
	want := map[string]string{
		"fetchCouponCode": claims + "aClaimCommittedThenDroppedIsSentAgainWithTheSameId " + claims + "aClaimThatTimesOutIsSentAgainWithTheSameId " +
			claims + "stockOutIsFinalAndRefunds " + claims + "theLibrarysOwnPublisherStillWorksOnAnotherChannel " + claims + "theUsersLimitIsFinalAndRefunds",
		"GetReward": "rewards.service.PaymentFlowTest",
	}
	for _, r := range rep.Rows {
		if got := strings.Join(r.Only, " "); r.Grade != "surfaced" || got != want[r.Endpoint] {
			t.Errorf("row %s: %s, ran only %s; want surfaced, %s", r.ID, r.Grade, got, want[r.Endpoint])
		}
		if r.Tests == nil || len(r.Tests.Failed) == 0 || !strings.HasPrefix(r.Tests.Failed[0].Report, "runs/") {
			t.Errorf("row %s: failed tests %+v; want them named from the launcher's XML", r.ID, r.Tests)
		}
		for _, f := range r.Tests.Failed {
			// classname.method(params): the class must be one the row ran.
			method, _, _ := strings.Cut(f.Name, "(")
			if i := strings.LastIndex(method, "."); i < 0 || !strings.Contains(want[r.Endpoint], method[:i]) {
				t.Errorf("row %s: %s failed, not one of the tests it ran", r.ID, f.Name)
			}
		}
	}
	if len(rep.Rows) != 2 {
		t.Fatalf("%d rows\n%s", len(rep.Rows), stdout)
	}
	t.Logf("%s", stdout)
}

var (
	mavenInstall = regexp.MustCompile("(?s)<!-- doctest: skip \\([^)]*TestJavaMavenPlatformProfiles[^)]*\\) -->\n```sh\n(.*?)```")
	mavenPOM     = regexp.MustCompile("(?s)```xml\n(<project .*?</project>\n)```")
)

// A team on Linux, macOS and Windows with one pom.xml (issue 51, item 3):
// docs/java.md's install of the packed jars and its pom.xml, as written,
// with Debian's Maven and plugins standing in for Maven Central (a mirror
// of every repository to /usr/share/maven-repo: nothing from the network).
// On this machine its per-OS profiles put the library and this platform's
// classifier alone on the test class path, and the rewardsim command runs
// from it; with a Mac's os.name and os.arch (and Linux on ARM), the
// profile of that platform takes its classifier instead. Windows cannot be
// played this way: with os.name naming Windows, Maven's console library
// calls Windows' kernel32 before anything else and the JVM dies
// (UnsatisfiedLinkError), whatever jansi.* property is set.
func TestJavaMavenPlatformProfiles(t *testing.T) {
	t.Parallel()
	needTool(t, "mvn", "java")
	for _, plugin := range []string{"maven-install-plugin", "maven-dependency-plugin"} {
		need(t, "/usr/share/maven-repo/org/apache/maven/plugins/"+plugin, "make java-deps")
	}
	dist := need(t, "../dist/java/rewardsim.jar", "make java")
	md, err := os.ReadFile("../docs/java.md")
	if err != nil {
		t.Fatal(err)
	}
	install, pom := mavenInstall.FindSubmatch(md), mavenPOM.FindSubmatch(md)
	if install == nil || pom == nil {
		t.Fatal("docs/java.md: no install block marked for TestJavaMavenPlatformProfiles, or no ```xml pom.xml")
	}
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.xml")
	files := map[string]string{
		"pom.xml": string(pom[1]),
		"settings.xml": "<settings><localRepository>" + filepath.Join(dir, "m2") + "</localRepository>\n" +
			"<mirrors><mirror><id>debian</id><mirrorOf>*</mirrorOf><url>file:///usr/share/maven-repo</url></mirror></mirrors></settings>\n",
		// Read by mvn from the project's folder: these settings, batch mode (no colours, no jansi).
		".mvn/maven.config": "-B -s " + settings + "\n",
	}
	for name, content := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "dist"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(dist), filepath.Join(dir, "dist", "java")); err != nil {
		t.Fatal(err)
	}
	env := []string{"MAVEN_OPTS=", "REWARDSIM_BIN=", "REWARDSIM_URL=", "REWARDSIM_CONTROL_URL="}
	run(t, dir, env, 5*time.Minute, "sh", "-ec", string(install[1]))

	p := newJavaProject(t)
	for _, c := range []struct {
		name, opts, want string
	}{
		{"this machine", "", hostPlatform()},
		{"linux arm64", "-Dos.name=Linux -Dos.arch=aarch64", "linux-arm64"},
		{"mac intel", "-Dos.name=MacOSX -Dos.arch=x86_64", "darwin-amd64"},
		{"mac arm", "-Dos.name=MacOSX -Dos.arch=aarch64", "darwin-arm64"},
	} {
		out := filepath.Join(dir, "cp-"+c.want+".txt")
		run(t, dir, append(env, "MAVEN_OPTS="+c.opts), 3*time.Minute, "mvn", "-q", "dependency:build-classpath", "-Dmdep.outputFile="+out)
		cp, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var jars []string
		for _, j := range filepath.SplitList(strings.TrimSpace(string(cp))) {
			jars = append(jars, filepath.Base(j))
		}
		slices.Sort(jars)
		if want := []string{"rewardsim-0.1.0-" + c.want + ".jar", "rewardsim-0.1.0.jar"}; !slices.Equal(jars, want) {
			t.Errorf("%s (MAVEN_OPTS %q): the test class path holds %v, want %v", c.name, c.opts, jars, want)
			continue
		}
		t.Logf("%s: %v", c.name, jars)
		if c.opts == "" {
			if v := p.run(t, time.Minute, "java", "-cp", strings.TrimSpace(string(cp)), "io.github.rewardsim.Main", "version"); !regexp.MustCompile(`(?m)^rewardsim \S+$`).MatchString(v) {
				t.Errorf("the rewardsim command from the class path Maven resolved: %q", v)
			}
		}
	}
}

// A push from the simulator in a container to a service on this machine
// (issue 51, item 6): testdata/ContainerWebhook.java starts the image of
// `make image` with the Java library's RewardsimContainer in the
// repository's podman engine, listens on 0.0.0.0, makes the channel's
// webhook URL the container's hostUrl(port) and waits for the push to
// arrive. Through podman's command line, and through docker's talking to
// the podman service when docker is installed (the engine is then found
// by what the service calls itself); no container is left either way.
func TestJavaContainerWebhook(t *testing.T) {
	t.Parallel()
	needTool(t, "java")
	jar := need(t, "../dist/java/rewardsim.jar", "make java")
	if os.Getenv(requireEnv) == "" && os.Getenv("DOCKER_HOST") == "" {
		t.Skip("no container engine: make test starts one (.ci/engine/up)")
	}
	engine := engineEnv(t)
	clis := []string{"podman"}
	if _, err := exec.LookPath("docker"); err == nil {
		clis = append(clis, "docker")
	}
	for _, cli := range clis {
		t.Run(cli, func(t *testing.T) {
			env := append(slices.Clone(engine), "REWARDSIM_CONTAINER_ENGINE="+cli, "REWARDSIM_IMAGE=localhost/rewardsim:latest")
			out := run(t, ".", env, 3*time.Minute, "java", "-cp", jar, "testdata/ContainerWebhook.java")
			if !strings.Contains(out, "java container webhook: podman ") || !strings.Contains(out, "http://host.containers.internal:") {
				t.Fatalf("no push arrived through %s:\n%s", cli, out)
			}
			t.Log(strings.TrimSpace(out))
			ps := exec.Command("podman", "ps", "-aq", "--filter", "label=io.github.rewardsim")
			ps.Env = append(os.Environ(), engine...)
			if left, err := ps.Output(); err != nil || len(strings.TrimSpace(string(left))) != 0 {
				t.Fatalf("containers left: %q (%v)", left, err)
			}
		})
	}
}
