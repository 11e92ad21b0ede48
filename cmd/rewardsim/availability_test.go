package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// healthWithin fails t unless the control health answers 200 within d.
func healthWithin(t *testing.T, control string, d time.Duration) time.Duration {
	t.Helper()
	client := &http.Client{Timeout: d, Transport: &http.Transport{DisableKeepAlives: true}}
	start := time.Now()
	res, err := client.Get(control + "/__sim/health")
	took := time.Since(start)
	if err != nil {
		t.Fatalf("health: %v (after %s)", err, took)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("health: HTTP %d", res.StatusCode)
	}
	return took
}

// rawGet opens a connection and sends one keep-alive GET, returning the
// connection and a reader of its answer.
func rawGet(t *testing.T, hostport, path, header string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.DialTimeout("tcp", hostport, 2*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", hostport, err)
	}
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n%s\r\n", path, hostport, header)
	return c, bufio.NewReader(c)
}

// Issue 23 done-when: with 100 open /__sim/live streams, with the token
// and without, health answers within 1 s; a 401 answer closes its
// connection; streams beyond the bound get 429.
func TestServe_liveStreamsCannotStarveControl(t *testing.T) {
	cmd, urls := startServe(t, buildBinary(t), t.TempDir(), "--control-token", "s3cret")
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	control := strings.TrimPrefix(urls["control"], "http://")

	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	statuses := map[int]int{}
	for i := range 100 {
		header := ""
		if i%2 == 0 {
			header = "Authorization: Bearer s3cret\r\n"
		}
		c, br := rawGet(t, control, "/__sim/live", header)
		conns = append(conns, c)
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		statuses[res.StatusCode]++
		if res.StatusCode != http.StatusOK {
			_, _ = io.Copy(io.Discard, res.Body)
			if _, err := br.ReadByte(); err != io.EOF {
				t.Fatalf("a %d answer left its connection open: %v", res.StatusCode, err)
			}
		}
	}
	// The bound per client address (4) is checked after the token.
	if statuses[http.StatusUnauthorized] != 50 || statuses[http.StatusOK] != 4 || statuses[http.StatusTooManyRequests] != 46 {
		t.Fatalf("stream answers %v: want 50 × 401, 4 × 200 and 46 × 429", statuses)
	}
	var worst time.Duration
	for range 5 {
		worst = max(worst, healthWithin(t, urls["control"], time.Second))
	}
	t.Logf("100 live streams opened (%v); worst health latency %s", statuses, worst)
}

// Issue 23 done-when: with 1,100 idle keep-alive connections on the
// public port (cap 1,024) a new client is served within 3 s: the oldest
// idle connections are closed to admit it.
func TestServe_idleKeepAlivesAreEvictedAtTheCap(t *testing.T) {
	cmd, urls := startServe(t, buildBinary(t), t.TempDir())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	public := strings.TrimPrefix(urls["all"], "http://")
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 1100 {
		c, err := net.DialTimeout("tcp", public, time.Second)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "GET /nothing-here HTTP/1.1\r\nHost: %s\r\n\r\n", public)
	}
	client := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	start := time.Now()
	res, err := client.Post(urls["all"]+"/api/getSecuredReferenceToken", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatalf("a new client beside 1,100 idle keep-alives: %v", err)
	}
	res.Body.Close()
	t.Logf("new public client served in %s beside 1,100 idle keep-alive connections", time.Since(start))
	healthWithin(t, urls["control"], time.Second)
}

// Issue 23 small ones: a FIFO named by {"path"} is refused at once (it
// once never answered), and so is `rewardsim validate FIFO`; stored
// scenarios are bounded in count, refused with 409 beyond.
func TestServe_fifoRefusedAndScenariosBounded(t *testing.T) {
	bin := buildBinary(t)
	fifo := filepath.Join(t.TempDir(), "scenario.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "validate", fifo).CombinedOutput()
	if ctx.Err() != nil || err == nil || !strings.Contains(string(out), "not a regular file") {
		t.Errorf("rewardsim validate FIFO: %v %s (timed out: %v), want a refusal naming it", err, out, ctx.Err() != nil)
	}

	cmd, urls := startServe(t, bin, t.TempDir())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	control := urls["control"]
	st, body, took := ctlCall(t, control, "POST", "/__sim/scenarios", map[string]any{"path": fifo})
	if st != http.StatusBadRequest || !strings.Contains(string(body), "not a regular file") || took > 2*time.Second {
		t.Errorf(`{"path": FIFO}: HTTP %d in %s: %s; want 400 at once`, st, took, body)
	}

	upload := func(name string) (int, string) {
		yaml := "version: 1\nname: " + name + "\nchannels: [{name: DEMOBANK, certificateFile: \"builtin:publisher-dev.crt\"}]\n"
		res, err := http.Post(control+"/__sim/scenarios?name="+name+".yaml", "application/yaml", strings.NewReader(yaml))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for i := range 200 {
		if st, b := upload(fmt.Sprintf("s%03d", i)); st != http.StatusCreated {
			t.Fatalf("upload %d: HTTP %d %s", i, st, b)
		}
	}
	if st, b := upload("one-too-many"); st != http.StatusConflict || !strings.Contains(b, "maximum") {
		t.Fatalf("scenario 201: HTTP %d %s, want 409 naming the maximum", st, b)
	}
	if st, b := upload("s007"); st != http.StatusCreated {
		t.Fatalf("replacing a stored scenario at the bound: HTTP %d %s", st, b)
	}
}
