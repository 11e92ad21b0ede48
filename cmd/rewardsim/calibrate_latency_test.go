package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rewardsim calibrate --latency-samples against a real serve with a
// latency profile set learns roughly what was set (issue 53 item 3): the
// log-normal written into the overlay, saying how many samples it rests
// on, and the overlay loads back as a scenario.
func TestCalibrate_latencySamplesLearnTheProfile(t *testing.T) {
	bin := buildBinary(t)
	cmd, urls := startServe(t, bin, t.TempDir())
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	env := []string{envControlURL + "=" + urls["control"]}
	if out, errOut, code := verbRun(t, bin, env, "latency", "set", "--endpoint", "getCatalogue", "--lognormal", "40ms,120ms", "--seed", "5"); code != 0 {
		t.Fatalf("latency set: %s%s", out, errOut)
	}
	dir := t.TempDir()
	certs := filepath.Join("..", "..", "certs")
	js, overlay := filepath.Join(dir, "cal.json"), filepath.Join(dir, "overlay.yaml")
	u := urls["all"]
	base := []string{"calibrate", "--rewards", u, "--bank", u, "--hotdeals", u, "--channel", "DEMOBANK",
		"--key", filepath.Join(certs, "publisher-dev.key"), "--service-cert", filepath.Join(certs, "service-dev.crt"),
		"--app-key", "DEMOAPPKEY", "--sec-key", "DEMOSECKEY"}
	if out, err := run(t, append(base, "--latency-samples", "1001")...); err == nil || !strings.Contains(out+err.Error(), "--latency-samples must be from 0 to 1000") {
		t.Errorf("--latency-samples over the bound: %v %s", err, out)
	}
	out, err := run(t, append(base, "--latency-samples", "120", "--json", js, "--out", overlay)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "latency getCatalogue: median") || !strings.Contains(out, "written as a log-normal profile") {
		t.Errorf("the table does not show getCatalogue's latency: %s", out)
	}
	raw, _ := os.ReadFile(js)
	readCalReport(t, js) // valid against schemas/calibrate.json
	var rep struct {
		Latency []struct {
			Endpoint, Median, P99 string
			Samples               int
			Profiled              bool
		}
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range rep.Latency {
		if l.Endpoint != "getCatalogue" {
			continue
		}
		found = true
		med, _ := time.ParseDuration(l.Median)
		p99, _ := time.ParseDuration(l.P99)
		// Loose: the wire and a shared machine add to what was set.
		if l.Samples < 120 || !l.Profiled || med < 30*time.Millisecond || med > 80*time.Millisecond || p99 < 80*time.Millisecond || p99 > 400*time.Millisecond {
			t.Errorf("getCatalogue learnt as median %v p99 %v from %d samples (profiled %v); set 40ms, 120ms", med, p99, l.Samples, l.Profiled)
		}
	}
	if !found {
		t.Fatalf("no getCatalogue figure in %s", raw)
	}
	yml, _ := os.ReadFile(overlay)
	if !strings.Contains(string(yml), "- {endpoint: getCatalogue, lognormal: {median: ") || !strings.Contains(string(yml), "samples: ") {
		t.Errorf("the overlay has no getCatalogue profile:\n%s", yml)
	}
	q := url.Values{"name": {"learnt.yaml"}}
	res, err := http.Post(urls["control"]+"/__sim/scenarios?"+q.Encode(), "application/yaml", strings.NewReader(string(yml)))
	if err != nil {
		t.Fatal(err)
	}
	if body := readAll(t, res); res.StatusCode >= 300 {
		t.Errorf("the overlay does not load: HTTP %d %s\n%s", res.StatusCode, body, yml)
	}
}
