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

// dialHeld opens a raw connection to hostport, closed when the test ends.
func dialHeld(t *testing.T, hostport string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", hostport, time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", hostport, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Issue 23 done-when: with 1,100 idle keep-alive connections on the
// public port (cap 1,024) a new client is served within 3 s: the oldest
// idle connections are closed to admit it.
func TestServe_idleKeepAlivesAreEvictedAtTheCap(t *testing.T) {
	cmd, urls := startServe(t, buildBinary(t), t.TempDir())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	public := strings.TrimPrefix(urls["all"], "http://")
	for range 1100 {
		fmt.Fprintf(dialHeld(t, public), "GET /nothing-here HTTP/1.1\r\nHost: %s\r\n\r\n", public)
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

// Issue 55 item 3: at the connection cap a new client is served, its
// first request, while idle connections are held: connections that have
// sent nothing yet (the flood of a client that opens and waits) and
// answered keep-alives alike; the oldest idle one is closed for it.
// Connections mid-request are never the ones closed: each slow request
// (held by a delay fault) still gets its answer.
func TestServe_newClientServedAtTheCapWhileIdleConnsAreHeld(t *testing.T) {
	bin := buildBinary(t)
	const maxConns = 16
	for _, c := range []struct {
		name                   string
		slow, silent, answered int // in flight, never sent a byte, idle after one answer
	}{
		{"silent connections", 0, 3 * maxConns, 0},
		{"answered keep-alives", 0, 0, 3 * maxConns},
		{"in flight beside silent", maxConns / 2, 3 * maxConns, 0},
		{"in flight beside both", maxConns / 2, maxConns, maxConns},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd, urls := startServe(t, bin, t.TempDir(), "--max-connections", fmt.Sprint(maxConns))
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			public := strings.TrimPrefix(urls["all"], "http://")

			// The slow requests are in flight once their fault fired.
			if st, out, _ := ctlCall(t, urls["control"], "POST", "/__sim/faults", map[string]any{"id": "slow",
				"endpoint": "getCatalogue", "times": c.slow, "action": map[string]any{"kind": "delay", "delay": "3s"}}); c.slow > 0 && st != http.StatusCreated {
				t.Fatalf("arm the delay: HTTP %d %s", st, out)
			}
			slow := make([]net.Conn, c.slow)
			for i := range slow {
				conn := dialHeld(t, public)
				slow[i] = conn
				body := `{"channelName":"DEMOBANK"}`
				fmt.Fprintf(conn, "POST /api/getCatalogue HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nX-CHANNELID: DEMOBANK\r\n"+
					"Authorization: ServiceAppKey DEMOAPPKEY:DEMOSECKEY\r\nContent-Length: %d\r\n\r\n%s", public, len(body), body)
			}
			for deadline := time.Now().Add(10 * time.Second); c.slow > 0; {
				_, out, _ := ctlCall(t, urls["control"], "GET", "/__sim/faults", nil)
				if strings.Contains(string(out), fmt.Sprintf(`"fired":%d`, c.slow)) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the slow requests did not reach their fault: %s", out)
				}
				time.Sleep(20 * time.Millisecond)
			}

			for range c.answered {
				fmt.Fprintf(dialHeld(t, public), "GET /nothing-here HTTP/1.1\r\nHost: %s\r\n\r\n", public)
			}
			for range c.silent {
				dialHeld(t, public)
			}
			client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
			res, err := client.Post(urls["all"]+"/api/getSecuredReferenceToken", "application/json", strings.NewReader(`{}`))
			if err != nil {
				t.Fatalf("a new client at the cap (%d in flight, %d silent, %d answered): %v", c.slow, c.silent, c.answered, err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				t.Fatalf("a new client at the cap: HTTP %d, want 200", res.StatusCode)
			}
			for i, conn := range slow {
				_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
				res, err := http.ReadResponse(bufio.NewReader(conn), nil)
				if err != nil {
					t.Fatalf("slow request %d, in flight at the cap: %v (its connection was closed)", i, err)
				}
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					t.Errorf("slow request %d: HTTP %d, want 200", i, res.StatusCode)
				}
			}
		})
	}
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
