package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// underFDLimit wraps bin in a script that lowers the open-file limit, so
// a test can exhaust it with a few hundred connections.
func underFDLimit(t *testing.T, bin string, files int) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "rewardsim-limited")
	body := fmt.Sprintf("#!/bin/sh\nulimit -n %d || exit 3\nexec %q \"$@\"\n", files, bin)
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	return script
}

// A flood of idle connections to the public listener, more than the
// process has file descriptors for, leaves the control listener
// answering; idle keep-alive connections are reaped, after which the
// public listener answers again.
func TestServe_connectionFloodLeavesControlAnswering(t *testing.T) {
	bin := underFDLimit(t, buildBinary(t), 256)
	cmd, urls := startServe(t, bin, t.TempDir(), "--max-connections", "100", "--control-max-connections", "16",
		"--idle-timeout", "10s", "--read-timeout", "2s")
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	public := strings.TrimPrefix(urls["all"], "http://")

	// 400 keep-alive connections, each after one request, then idle.
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 400 {
		c, err := net.DialTimeout("tcp", public, time.Second)
		if err != nil {
			break // the backlog is full: that is the flood working
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "GET /nothing-here HTTP/1.1\r\nHost: %s\r\n\r\n", public)
	}
	client := &http.Client{Timeout: 3 * time.Second}
	for i := range 5 {
		res, err := client.Get(urls["control"] + "/__sim/health")
		if err != nil {
			t.Fatalf("control health #%d during the flood: %v", i, err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("control health #%d during the flood: HTTP %d", i, res.StatusCode)
		}
	}
	// The first connection was answered, then closed when idle.
	br := bufio.NewReader(conns[0])
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("first flood connection: %v", err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	_ = conns[0].SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		t.Fatalf("an idle keep-alive connection was not closed by the server: %v", err)
	}
	// Once the flood goes away, the public listener answers again.
	for _, c := range conns {
		c.Close()
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := client.Post(urls["all"]+"/api/getSecuredReferenceToken", "application/json", strings.NewReader(`{}`))
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the public listener never recovered from the flood: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// A request held past the shutdown deadline (an injected one-hour delay)
// is cut, logged by path, and the process exits non-zero.
func TestServe_shutdownSaysWhatItCut(t *testing.T) {
	bin := buildBinary(t)
	cmd, urls, stderr := startServeLogged(t, bin, t.TempDir(), "--shutdown-timeout", "500ms")
	held := holdARequest(t, urls["all"], urls["control"])
	_ = cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Fatalf("serve exited %v after cutting a request, want a non-zero status", err)
	}
	for _, want := range []string{"request cut without an answer", "/api/getSecuredReferenceToken", "requests were cut at the shutdown deadline"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if err := <-held; err == nil || err.Error() == "answered" {
		t.Fatalf("the held request was answered: %v", err)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}
