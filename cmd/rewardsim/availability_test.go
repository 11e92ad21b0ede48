package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
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
	// The bound per client address (4) is checked before the token, so
	// unauthenticated streams beyond it get 429 rather than 401.
	if statuses[http.StatusUnauthorized] == 0 || statuses[http.StatusOK] == 0 || statuses[http.StatusOK] > 4 ||
		statuses[http.StatusOK]+statuses[http.StatusUnauthorized]+statuses[http.StatusTooManyRequests] != 100 {
		t.Fatalf("stream answers %v: want some 401, 1..4 × 200 and the rest 429", statuses)
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
