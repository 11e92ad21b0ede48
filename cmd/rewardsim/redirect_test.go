package main

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Issue 55 item 6: no outbound client of rewardsim follows a redirect to
// another origin with its credentials or signed bodies. Each command is
// pointed at a server that redirects every request (307, which would
// re-send the body) to a second server on another port: the second
// server receives nothing, and the command stops with an error naming
// both hosts (the record proxy hands the redirect back unfollowed).
func TestOutbound_neverFollowsARedirectToAnotherOrigin(t *testing.T) {
	bin := buildBinary(t)
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	from, to := strings.TrimPrefix(redirector.URL, "http://"), strings.TrimPrefix(other.URL, "http://")

	for _, c := range []struct {
		name string
		args []string
	}{
		{"calibrate", calTarget{url: redirector.URL}.args("CALX", "--allow-writes", "--offer", "O", "--budget", "5", "--json", filepath.Join(t.TempDir(), "cal.json"))},
		{"a control verb with the token", []string{"fault", "ls", "--control", redirector.URL, "--control-token", "s3cret"}},
		{"healthcheck", []string{"healthcheck", "--control", from}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := exec.Command(bin, c.args...).CombinedOutput()
			if err == nil || !strings.Contains(string(out), from) || !strings.Contains(string(out), to) {
				t.Errorf("rewardsim %s: %v, want a refusal naming %s and %s\n%s", c.args[0], err, from, to, out)
			}
			if n := elsewhere.Swap(0); n != 0 {
				t.Errorf("the other origin received %d request(s)", n)
			}
		})
	}

	t.Run("record proxy", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		rec := exec.Command(bin, "record", "--upstream", redirector.URL, "--listen", addr, "--out", filepath.Join(t.TempDir(), "rec.json"))
		if err := rec.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = rec.Process.Kill(); _ = rec.Wait() }()
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		var res *http.Response
		for deadline := time.Now().Add(10 * time.Second); ; {
			res, err = client.Post("http://"+addr+"/api/getSecuredReferenceToken", "application/json", strings.NewReader(`{"BDATA":"e30=","SIGN":"x"}`))
			if err == nil || time.Now().After(deadline) {
				break
			}
			var op *net.OpError
			if !errors.As(err, &op) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("through the proxy: %v", err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusTemporaryRedirect || elsewhere.Load() != 0 {
			t.Errorf("the proxy answered HTTP %d, the other origin received %d request(s); want the 307 handed back, unfollowed", res.StatusCode, elsewhere.Load())
		}
	})
}
