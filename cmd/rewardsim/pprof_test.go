package main

import (
	"net/http"
	"testing"
)

// --debug-pprof serves Go's profiler on the control listener (what
// `make load -profile` reads), behind the control token; without it the
// path is the control API's 404.
func TestServe_debugPprofOnlyWhenAsked(t *testing.T) {
	bin := buildBinary(t)
	for _, c := range []struct {
		name  string
		extra []string
		token string
		want  int
	}{
		{"off by default", nil, "", http.StatusNotFound},
		{"on", []string{"--debug-pprof", "true"}, "", http.StatusOK},
		{"on, behind the control token", []string{"--debug-pprof", "true", "--control-token", "T"}, "", http.StatusUnauthorized},
		{"on, with the control token", []string{"--debug-pprof", "true", "--control-token", "T"}, "T", http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd, urls := startServe(t, bin, t.TempDir(), c.extra...)
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			req, _ := http.NewRequest("GET", urls["control"]+"/__sim/debug/pprof/heap?debug=1", nil)
			if c.token != "" {
				req.Header.Set("X-Rewardsim-Control-Token", c.token)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != c.want {
				t.Fatalf("HTTP %d, want %d", res.StatusCode, c.want)
			}
		})
	}
}
