package main

import (
	"encoding/json"
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
			// And the store's write counters, make load's pages per exchange.
			for _, path := range []string{"/__sim/debug/pprof/heap?debug=1", "/__sim/debug/store"} {
				req, _ := http.NewRequest("GET", urls["control"]+path, nil)
				if c.token != "" {
					req.Header.Set("X-Rewardsim-Control-Token", c.token)
				}
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				var ans struct{ State struct{ Pages int64 } }
				if path == "/__sim/debug/store" && res.StatusCode == http.StatusOK {
					if err := json.NewDecoder(res.Body).Decode(&ans); err != nil || ans.State.Pages <= 0 {
						t.Errorf("%s: %+v %v, want the pages opening the file wrote", path, ans, err)
					}
				}
				res.Body.Close()
				if res.StatusCode != c.want {
					t.Fatalf("%s: HTTP %d, want %d", path, res.StatusCode, c.want)
				}
			}
		})
	}
}
