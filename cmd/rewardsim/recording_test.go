package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/simtest"
)

// run executes the rewardsim command line and returns its output.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

// clause: SIM-6, NA-1
func TestReportCmd_SIM6_failOnSeverity(t *testing.T) {
	s := simtest.New(t)
	if _, err := s.Client.ReferenceToken(context.Background()); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, "report", "--control", s.ControlURL); err != nil || !strings.Contains(out, "0 finding(s)") {
		t.Fatalf("a clean run: %v\n%s", err, out)
	}
	res, err := http.Post(s.RewardsURL+"/api/RegisterEvent", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	cases := []struct {
		args    []string
		wantErr bool
	}{
		{[]string{"--fail-on", "error"}, true},
		{[]string{"--fail-on", "warning"}, true},
		{[]string{"--fail-on", "none"}, false},
		{[]string{"--fail-on", "error", "--channel", "OTHER"}, false},
	}
	for _, c := range cases {
		out, err := run(t, append([]string{"report", "--control", s.ControlURL}, c.args...)...)
		if (err != nil) != c.wantErr {
			t.Errorf("report %v: error %v, want error %v\n%s", c.args, err, c.wantErr, out)
		}
		if c.args[len(c.args)-1] != "OTHER" && !strings.Contains(out, "NA-1") {
			t.Errorf("report %v does not name NA-1:\n%s", c.args, out)
		}
	}
	if _, err := run(t, "report", "--control", s.ControlURL, "--fail-on", "fatal"); err == nil {
		t.Error("--fail-on fatal was accepted")
	}
}

// clause: SIM-4
func TestSessionExportAndReplayCmds_SIM4(t *testing.T) {
	s := simtest.New(t)
	ctx := context.Background()
	if _, err := s.Client.ReferenceToken(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client.UserToken(ctx, "VU-1"); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "sessions", "flow.json")
	if out, err := run(t, "session", "export", "--control", s.ControlURL, "--out", file); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(data), `"name": "flow"`) {
		t.Fatalf("exported file: %v\n%s", err, data)
	}
	fresh := simtest.New(t)
	if out, err := run(t, "replay", file, "--shared", "--target", fresh.RewardsURL); err != nil || !strings.Contains(out, "2 steps, no difference") {
		t.Fatalf("replay against a fresh simulator: %v\n%s", err, out)
	}
	changed := simtest.New(t, simtest.WithScenarioYAML(`version: 1
name: changed
tokens:
  expireDateFormat: epoch-ms
channels:
  - name: DEMOBANK
    certificateFile: builtin:publisher-dev.crt
`))
	out, err := run(t, "replay", file, "--shared", "--target", changed.RewardsURL+","+changed.BankURL+","+changed.HotdealsURL)
	if err == nil || !strings.Contains(out, "bdata /expireDate") || !strings.Contains(out, `"2026-01-15 10:30:00.000"`) || !strings.Contains(out, `replayed: "1768453200000"`) {
		t.Fatalf("replay against a changed scenario: %v\n%s", err, out)
	}
	// A mask given on the command line hides the difference.
	if out, err := run(t, "replay", file, "--shared", "--target", changed.RewardsURL, "--mask", "expireDate=ignore"); err != nil {
		t.Errorf("with --mask expireDate=ignore: %v\n%s", err, out)
	}
	if _, err := run(t, "replay", file, "--shared", "--target", "nota-url"); err == nil {
		t.Error("a bad --target was accepted")
	}
}

// clause: SIM-4
// `rewardsim record` proxies to an upstream simulator and, when stopped,
// writes a session that replays clean against a fresh simulator.
func TestRecordCmd_SIM4_proxyWritesSessionOnStop(t *testing.T) {
	upstream := simtest.New(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	file := filepath.Join(t.TempDir(), "recorded.json")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		root := newRoot()
		root.SetOut(io.Discard)
		root.SetArgs([]string{"record", "--upstream", upstream.RewardsURL, "--listen", addr, "--out", file})
		done <- root.ExecuteContext(ctx)
	}()
	c := *upstream.Client
	c.RewardsURL, c.BankURL = "http://"+addr, "http://"+addr
	var tokErr error
	for i := 0; i < 200; i++ { // the proxy starts listening
		if _, tokErr = c.ReferenceToken(context.Background()); tokErr == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if tokErr != nil {
		t.Fatalf("through the proxy: %v", tokErr)
	}
	if _, err := c.Session(context.Background(), "VU-1"); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("record: %v", err)
	}
	fresh := simtest.New(t)
	if out, err := run(t, "replay", file, "--shared", "--target", fresh.RewardsURL); err != nil || !strings.Contains(out, "2 steps, no difference") {
		t.Errorf("replaying the recorded file: %v\n%s", err, out)
	}
}

// clause: SIM-4
func TestServeCmd_SIM4_journalBoundFlagsAreChecked(t *testing.T) {
	for _, args := range [][]string{
		{"--journal-max-entries", "0"},
		{"--journal-max-entries", "many"},
		{"--journal-max-age", "-1h"},
		{"--journal-max-age", "a day"},
	} {
		_, err := run(t, append([]string{"serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0"}, args...)...)
		if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(args[0], "--")) {
			t.Errorf("serve %v: %v, want an error naming the flag", args, err)
		}
	}
}
