package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// clause: SIM-3, SIM-4
// `rewardsim serve --log-format json` (here through the environment, as
// viper reads every serve setting) writes one JSON line per request on the
// public hosts, with method, host, path, channel, status, latency and
// fault, a line on start naming the listeners, version, data folder and
// scenario, and one on shutdown. --cors-origins answers the listed origin
// and no other.
func TestServeLogsOneJSONLinePerRequest(t *testing.T) {
	bin := buildBinary(t)
	data := t.TempDir()
	cmd := exec.Command(bin, "serve", "--data", data, "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0",
		"--cors-origins", "http://app.example")
	cmd.Env = append(os.Environ(), "REWARDSIM_LOG_FORMAT=json", "REWARDSIM_LOG_LEVEL=info")
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	// Every line on standard output is JSON too, the listeners' included.
	urls := map[string]string{}
	sc := bufio.NewScanner(stdout)
	for len(urls) < 2 && sc.Scan() {
		var m struct{ Msg, Listener, URL string }
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("standard output line is not JSON: %v: %s", err, sc.Text())
		}
		if m.Msg == "listening" {
			urls[m.Listener] = m.URL
		}
	}
	if len(urls) < 2 {
		t.Fatalf("serve did not report its listeners")
	}
	var rest bytes.Buffer
	restDone := make(chan struct{})
	go func() { _, _ = rest.ReadFrom(stdout); close(restDone) }()

	do := func(method, url, origin, body string) *http.Response {
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	if res := do("POST", urls["all"]+"/api/getSecuredReferenceToken", "http://app.example", `{}`); res.Header.Get("Access-Control-Allow-Origin") != "http://app.example" {
		t.Errorf("listed origin: Access-Control-Allow-Origin %q", res.Header.Get("Access-Control-Allow-Origin"))
	}
	if res := do("POST", urls["all"]+"/api/GetReward", "http://evil.example", `{}`); res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("unlisted origin got Access-Control-Allow-Origin %q", res.Header.Get("Access-Control-Allow-Origin"))
	}
	do("GET", urls["all"]+"/no/such/path", "", "")
	const requests = 3
	// A journal read flushes the writer, and the request lines are
	// written before it returns.
	if res := do("GET", urls["control"]+"/__sim/journal?limit=1", "", ""); res.StatusCode != http.StatusOK {
		t.Fatalf("journal: HTTP %d", res.StatusCode)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	<-restDone
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve did not exit cleanly: %v\n%s", err, stderr.String())
	}

	var started, stopped map[string]any
	var reqs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()+rest.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %v: %s", err, line)
		}
		switch m["msg"] {
		case "rewardsim started":
			started = m
		case "rewardsim stopped":
			stopped = m
		case "request":
			reqs = append(reqs, m)
		}
	}
	if started == nil || started["data"] != data || started["scenario"] != "default" || started["version"] == nil ||
		!strings.HasPrefix(urls["all"], "http://"+started["listen.all"].(string)) || started["listen.control"] == nil {
		t.Errorf("start line = %v", started)
	}
	if stopped == nil {
		t.Errorf("no line on shutdown:\n%s", stderr.String())
	}
	if len(reqs) != requests {
		t.Fatalf("%d request lines, want %d:\n%s", len(reqs), requests, stderr.String())
	}
	for _, k := range []string{"method", "host", "path", "channel", "status", "outcome", "latency_ms", "fault", "level", "time"} {
		if _, ok := reqs[0][k]; !ok {
			t.Errorf("request line lacks %q: %v", k, reqs[0])
		}
	}
	if reqs[0]["path"] != "/api/getSecuredReferenceToken" || reqs[0]["host"] != "rewards" || reqs[0]["method"] != "POST" || reqs[0]["level"] != "INFO" {
		t.Errorf("first request line = %v", reqs[0])
	}
	if reqs[2]["path"] != "/no/such/path" || reqs[2]["status"] != 404.0 || reqs[2]["outcome"] != "refusal" {
		t.Errorf("third request line = %v", reqs[2])
	}
	// The refused calls say why; latency is a number of milliseconds.
	for _, r := range reqs[:2] {
		if r["outcome"] != "refusal" || r["reason"] == nil || r["reason"] == "" {
			t.Errorf("a refused call's line without its reason: %v", r)
		}
	}
	if ms, ok := reqs[0]["latency_ms"].(float64); !ok || ms <= 0 || ms > 10_000 {
		t.Errorf("latency_ms = %v, want milliseconds", reqs[0]["latency_ms"])
	}
}

// Without --cors-origins no origin is answered: browsers keep other
// sites' pages away from the simulator.
func TestServeCORSOffByDefault(t *testing.T) {
	bin := buildBinary(t)
	cmd, urls := startServe(t, bin, t.TempDir())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	req, _ := http.NewRequest("OPTIONS", urls["all"]+"/api/GetReward", nil)
	req.Header.Set("Origin", "http://app.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if v := res.Header.Get("Access-Control-Allow-Origin"); v != "" {
		t.Errorf("preflight without --cors-origins: Access-Control-Allow-Origin %q", v)
	}
}
