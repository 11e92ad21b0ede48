package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A client that pipelines requests and reads nothing holds up only
// itself (issue 42, item 2): verify and the journal, on every channel,
// wait for its unwritten answer at most journal.SettleWait (2s), then
// answer without it and name it; they once waited the write timeout
// (then two hours).
func TestStalledReader_holdsUpOnlyItself(t *testing.T) {
	bin := issue20Binary(t)
	cmd, urls := startServe(t, bin, t.TempDir())
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()

	u, _ := url.Parse(urls["all"])
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.(*net.TCPConn).SetReadBuffer(4 << 10)
	// 3,000 pipelined 5 KB assets, never read: far more than the
	// loopback socket buffers hold, so one answer stays half written.
	go func() {
		req := "GET /assets/app.js HTTP/1.1\r\nHost: " + u.Host + "\r\n\r\n"
		_, _ = conn.Write([]byte(strings.Repeat(req, 3000)))
	}()
	time.Sleep(time.Second)

	start := time.Now()
	st, body, _ := ctlCall(t, urls["control"], "POST", "/__sim/verify", map[string]any{"channel": "DEMOBANK", "endpoint": "GetAuthToken", "times": 0})
	took := time.Since(start)
	var v struct {
		OK        bool
		Unsettled *struct {
			Seq  uint64
			Note string
		}
	}
	if err := json.Unmarshal(body, &v); err != nil || st != http.StatusOK || !v.OK {
		t.Fatalf("verify: HTTP %d %s %v", st, body, err)
	}
	if v.Unsettled == nil || v.Unsettled.Seq == 0 || !strings.Contains(v.Unsettled.Note, "not read") {
		t.Errorf("verify did not name the exchange it gave up on: %s", body)
	}
	if took > 5*time.Second {
		t.Errorf("verify took %v with a stalled reader, want about 2s", took)
	}
	t.Logf("verify answered in %v beside a stalled reader: %s", took.Round(time.Millisecond), body)

	start = time.Now()
	res, err := (&http.Client{Timeout: 10 * time.Second}).Get(urls["control"] + "/__sim/journal?limit=1")
	if err != nil {
		t.Fatalf("journal read with a stalled reader: %v", err)
	}
	res.Body.Close()
	if took := time.Since(start); res.StatusCode != http.StatusOK || took > 5*time.Second || res.Header.Get("X-Rewardsim-Unsettled") == "" {
		t.Errorf("journal: HTTP %d in %v, X-Rewardsim-Unsettled %q", res.StatusCode, took, res.Header.Get("X-Rewardsim-Unsettled"))
	}
}
