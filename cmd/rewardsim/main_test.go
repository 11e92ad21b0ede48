package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim"
)

// buildBinary builds rewardsim once into dir.
func buildBinary(tb testing.TB) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "rewardsim")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startServe runs `rewardsim serve` on ephemeral loopback ports and returns
// the control URL once the process has printed its bound addresses.
func startServe(tb testing.TB, bin, data string, extra ...string) (*exec.Cmd, map[string]string) {
	tb.Helper()
	cmd, urls, _ := startServeLogged(tb, bin, data, extra...)
	return cmd, urls
}

// startServeLogged is startServe that also returns the process's stderr,
// to be read after it exits.
func startServeLogged(tb testing.TB, bin, data string, extra ...string) (*exec.Cmd, map[string]string, *bytes.Buffer) {
	tb.Helper()
	args := append([]string{"serve", "--data", data, "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0", "--log-level", "error"}, extra...)
	cmd := boundedServe(tb, bin, args...)
	stdout, _ := cmd.StdoutPipe()
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	// A serve that neither listens nor exits is killed, which ends the read.
	slow := time.AfterFunc(time.Minute, func() { _ = cmd.Process.Kill() })
	defer slow.Stop()
	urls := map[string]string{}
	sc := bufio.NewScanner(stdout)
	for len(urls) < 2 && sc.Scan() {
		// "rewardsim: all listening on http://127.0.0.1:NNNN"
		f := strings.Fields(sc.Text())
		if len(f) == 5 && f[2] == "listening" {
			urls[f[1]] = f[4]
		}
	}
	if len(urls) < 2 {
		cmd.Process.Kill()
		cmd.Wait()
		tb.Fatalf("serve did not report its listeners within a minute; stderr: %s", stderr.String())
	}
	go func() { _, _ = bufio.NewReader(stdout).WriteTo(nopWriter{}) }()
	return cmd, urls, stderr
}

// boundedServe is the command of a serve process that is killed, failing
// the test, should it outlive serveLifetime: a test stuck on it (a wait
// for its exit or its listeners, a call it never answers) then ends with
// a clear failure instead of the package's timeout (issue 55 item 7).
func boundedServe(tb testing.TB, bin string, args ...string) *exec.Cmd {
	life := serveLifetime(tb)
	ctx, cancel := context.WithTimeout(context.Background(), life)
	tb.Cleanup(func() {
		if ctx.Err() == context.DeadlineExceeded {
			tb.Errorf("serve %v killed after %s: the test was stuck on it", args, life.Round(time.Second))
		}
		cancel()
	})
	return exec.CommandContext(ctx, bin, args...)
}

// serveLifetime bounds a test's serve process: 5 minutes beyond the
// longest phases the environment may set, and never past 30 s before the
// test binary's own deadline.
func serveLifetime(tb testing.TB) time.Duration {
	life := 5*time.Minute + soakSeconds() + pagingSeconds()
	if t, ok := tb.(interface{ Deadline() (time.Time, bool) }); ok {
		if end, ok := t.Deadline(); ok {
			life = min(life, time.Until(end)-30*time.Second)
		}
	}
	return max(life, time.Second)
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }

func TestServeAnswersAndStopsGracefully(t *testing.T) {
	bin := buildBinary(t)
	cmd, urls := startServe(t, bin, t.TempDir())
	res, err := http.Get(urls["control"] + "/__sim/health")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("health: %v %v", res, err)
	}
	res.Body.Close()
	res, err = http.Post(urls["all"]+"/api/getSecuredReferenceToken", "application/json", strings.NewReader(`{}`))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("rewards path: %v %v", res, err)
	}
	res.Body.Close()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve did not exit cleanly on SIGTERM: %v", err)
	}
}

func TestSecondInstanceOnSameDataFails(t *testing.T) {
	bin := buildBinary(t)
	data := t.TempDir()
	cmd, _ := startServe(t, bin, data)
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	out, err := exec.Command(bin, "serve", "--data", data, "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "in use by another rewardsim process") {
		t.Fatalf("second instance: err %v, output %s", err, out)
	}
}

func TestServeConfigSources(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("listen: 127.0.0.1:0\nlisen: typo\n"), 0o600)
	cmd := newRoot()
	cmd.SetArgs([]string{"serve", "--config", bad})
	cmd.SetOut(&bytes.Buffer{})
	if err := cmd.ExecuteContext(context.Background()); err == nil || !strings.Contains(err.Error(), "unknown keys lisen") {
		t.Fatalf("a typo in the config file: %v, want unknown keys lisen", err)
	}

	// The file's unknown keys are reported before any value is judged, and
	// the journal bounds are checked wherever they come from.
	both := filepath.Join(dir, "both.yaml")
	os.WriteFile(both, []byte("lisen: typo\njournal-max-entries: zero\n"), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", both}, "unknown keys lisen"},
		{[]string{"--journal-max-entries", "0"}, `journal-max-entries: "0" is not a positive number or -1`},
		{[]string{"--journal-max-age", "-1h"}, `journal-max-age: "-1h" is not a duration`},
		{[]string{"--idle-timeout", "0s"}, `idle-timeout: "0s" is not a positive duration`},
		{[]string{"--max-connections", "none"}, `max-connections: "none" is not a positive number`},
		{[]string{"--journal-max-bytes", "0"}, `journal-max-bytes: "0" is not a size`},
		{[]string{"--journal-max-bytes", "lots"}, `journal-max-bytes: "lots" is not a size`},
		{[]string{"--log-format", "xml"}, `log-format: "xml" is not text or json`},
		{[]string{"--state-retention", "0"}, `state-retention: "0" is not a positive duration`},
	} {
		sc := serveCommand(func(*cobra.Command, serveConfig) error { return nil })
		sc.SetArgs(c.args)
		if err := sc.Execute(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error containing %q", c.args, err, c.want)
		}
	}

	// Environment beats the file, a flag beats the environment, the file
	// beats the default.
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("scenario: /from/file\ndata: /from/file\npublic-url: http://file\n"), 0o600)
	t.Setenv("REWARDSIM_DATA", "/from/env")
	t.Setenv("REWARDSIM_PUBLIC_URL", "http://env")
	t.Setenv("REWARDSIM_CONTROL_ALLOWED_HOSTS", "sim.internal, ci-box")
	var got serveConfig
	sc := serveCommand(func(_ *cobra.Command, cfg serveConfig) error { got = cfg; return nil })
	sc.SetArgs([]string{"--config", good, "--public-url", "http://flag"})
	if err := sc.Execute(); err != nil {
		t.Fatal(err)
	}
	want := serveConfig{Listen: "127.0.0.1:8080", ControlListen: "127.0.0.1:8090", Data: "/from/env",
		Scenario: "/from/file", PublicURL: "http://flag", LogLevel: "info", LogFormat: "text", Crypto: "auto", Durability: "process", WebhookDeadline: "5s", JournalMaxEntries: 100000, JournalMaxBytes: 64 << 20, MemoryLimit: 40 << 20, StateRetention: 24 * time.Hour,
		Server: serverConfig{ReadTimeout: 30 * time.Second, WriteTimeout: 90 * time.Second, IdleTimeout: time.Minute,
			ShutdownTimeout: 5 * time.Second, MaxConns: 1024, MaxControlConns: 64},
		ControlAllowedHosts: []string{"sim.internal", "ci-box"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("resolved config\n got %+v\nwant %+v", got, want)
	}
}

// BenchmarkStartup measures exec to the first answered request of
// `rewardsim serve` on the embedded default scenario (target: 50 ms).
// Each iteration starts a fresh process on a fresh data folder, polls the
// health endpoint on a known port, then stops the process.
func BenchmarkStartup(b *testing.B) {
	bin := buildBinary(b)
	var total, worst time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		data := b.TempDir()
		start := time.Now()
		cmd, urls := startServe(b, bin, data)
		res, err := http.Get(urls["control"] + "/__sim/health")
		if err != nil || res.StatusCode != 200 {
			b.Fatalf("health: %v", err)
		}
		res.Body.Close()
		took := time.Since(start)
		total += took
		worst = max(worst, took)
		b.StopTimer()
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-mean")
	b.ReportMetric(float64(worst.Microseconds())/1000, "ms-worst")
}

// Health names the RSA back end; --crypto go forces crypto/rsa, auto
// switches to libcrypto once it has loaded in the background (wherever
// this test's own process can load it), and an unknown back end stops
// serve with a clear error.
func TestServeHealthNamesCryptoBackend(t *testing.T) {
	bin := buildBinary(t)
	auto := sim.CryptoGo
	if sim.UseCrypto(sim.CryptoLibcrypto) == nil {
		auto = sim.CryptoLibcrypto
	}
	for _, tc := range []struct{ flag, want string }{{"go", "go"}, {"auto", auto}, {"libcrypto", auto}} {
		if tc.flag == "libcrypto" && auto != sim.CryptoLibcrypto {
			continue
		}
		cmd, urls := startServe(t, bin, t.TempDir(), "--crypto", tc.flag)
		var got string
		for deadline := time.Now().Add(10 * time.Second); got != tc.want && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			res, err := http.Get(urls["control"] + "/__sim/health")
			if err != nil {
				t.Fatal(err)
			}
			var h struct{ Crypto string }
			err = json.NewDecoder(res.Body).Decode(&h)
			res.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			got = h.Crypto
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		if got != tc.want {
			t.Errorf("--crypto %s: health says crypto %q, want %q", tc.flag, got, tc.want)
		}
	}
	out, err := exec.Command(bin, "serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0", "--crypto", "openssl").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--crypto") {
		t.Fatalf("--crypto openssl: want a refusal naming the flag, got %v: %s", err, out)
	}
}
