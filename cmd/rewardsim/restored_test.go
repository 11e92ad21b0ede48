package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"syscall"
	"testing"
)

// clause: SIM-2
// What a restart restored is visible: a scenario activated for one
// channel and a run-time fault rule, restored from the data folder, are on
// the start line and in GET /__sim/health (the start line said only
// scenario=default while they governed). And the control API's times are
// in the scenario's zone.
func TestServe_SIM2_startLineAndHealthListWhatWasRestored(t *testing.T) {
	bin := buildBinary(t)
	data := t.TempDir()
	srv, urls := startServe(t, bin, data)
	ctl := urls["control"]
	post := func(path, ctype, body string) {
		t.Helper()
		res, err := http.Post(ctl+path, ctype, strings.NewReader(body))
		if err != nil || res.StatusCode >= 300 {
			t.Fatalf("POST %s: %v %v", path, res, err)
		}
		res.Body.Close()
	}
	post("/__sim/scenarios?name=ci-own.yaml&activate=true&channel=DEMOBANK", "application/yaml", "extends: default\nname: ci-own\n")
	post("/__sim/faults", "application/json", `{"id":"kept","endpoint":"GetAuthToken","action":{"kind":"internal-error"}}`)
	_ = srv.Process.Signal(syscall.SIGTERM)
	_ = srv.Wait()

	srv, urls, stderr := startServeLogged(t, bin, data, "--log-level", "info")
	res, err := http.Get(urls["control"] + "/__sim/health")
	if err != nil {
		t.Fatal(err)
	}
	var health struct {
		Scenario string
		Channels map[string]string
		Faults   []struct{ ID, Kind string }
	}
	_ = json.NewDecoder(res.Body).Decode(&health)
	res.Body.Close()
	// The control API's times are in the scenario's zone, as the answers'
	// are (the default scenario's +05:30), not UTC, on the real clock too.
	for _, path := range []string{"/__sim/clock", "/__sim/clock?channel=DEMOBANK", "/__sim/state/users/DEMOBANK/VU-1"} {
		res, err := http.Get(urls["control"] + path)
		if err != nil {
			t.Fatal(err)
		}
		var v struct{ Now string }
		_ = json.NewDecoder(res.Body).Decode(&v)
		res.Body.Close()
		if !strings.HasSuffix(v.Now, "+05:30") {
			t.Errorf("GET %s: now %q, not in the scenario's zone", path, v.Now)
		}
	}
	_ = srv.Process.Signal(syscall.SIGTERM)
	_ = srv.Wait()
	if health.Channels["DEMOBANK"] != "ci-own" || len(health.Faults) != 1 || health.Faults[0].ID != "kept" || health.Faults[0].Kind != "internal-error" {
		t.Errorf("health after the restart: %+v", health)
	}
	line := ""
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, "rewardsim started") {
			line = l
		}
	}
	if !strings.Contains(line, `channelScenarios="DEMOBANK=ci-own"`) || !strings.Contains(line, "faults=kept") {
		t.Errorf("the start line does not say what was restored: %q\n%s", line, bytes.TrimSpace(stderr.Bytes()))
	}
}
