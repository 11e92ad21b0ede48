package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A client that pipelines requests and reads nothing holds up only
// itself (issue 42, item 2): the journal of every channel waits for its
// unwritten answer at most journal.SettleWait (2s), then answers without
// it and names it; it once waited the write timeout (then two hours).
// Its exchanges (assets) are of no channel, so a channel's verify does
// not wait for them at all (issue 55 item 8).
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
	if v.Unsettled != nil || took > journalSettleWait/2 {
		t.Errorf("verify of DEMOBANK took %v beside a stalled reader of no channel, want at once and nothing left out: %s", took, body)
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

// stallChannel makes a client that pipelines getCatalogue calls of
// DEMOBANK (each answer some 100 KB: the scenario's offers carry long
// descriptions) and reads nothing, so one answer stays half written: an
// exchange of DEMOBANK that will not settle. The connection is closed
// when the test ends.
func stallChannel(t *testing.T, public string) {
	t.Helper()
	conn, err := net.Dial("tcp", public)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.(*net.TCPConn).SetReadBuffer(4 << 10)
	body := `{"channelName":"DEMOBANK"}`
	req := "POST /api/getCatalogue HTTP/1.1\r\nHost: " + public + "\r\nContent-Type: application/json\r\nX-CHANNELID: DEMOBANK\r\n" +
		"Authorization: ServiceAppKey DEMOAPPKEY:DEMOSECKEY\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	go func() { _, _ = conn.Write([]byte(strings.Repeat(req, 1000))) }()
}

// bigCatalogue is a scenario whose DEMOBANK catalogue answer is some
// 100 KB.
func bigCatalogue(t *testing.T) string {
	var b strings.Builder
	b.WriteString("version: 1\nname: big-catalogue\nextends: default\noffers:\n  DEMOBANK:\n")
	for i := range 50 {
		fmt.Fprintf(&b, "    - {id: BIG-%d, title: Big offer %d, coins: 1, stock: 10, description: %s}\n", i, i, strings.Repeat("long ", 400))
	}
	path := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Issue 55 item 8: a client of channel A that stops reading holds up the
// readers of A only. verify and the journal of channel B answer at once
// (a liveness bound of half journal.SettleWait); verify of A, and the
// journal of every channel, still wait for A's unwritten answer at most
// journal.SettleWait, then answer without it and name it.
func TestStalledReader_holdsUpOnlyItsOwnChannel(t *testing.T) {
	bin := buildBinary(t)
	cmd, urls := startServe(t, bin, t.TempDir(), "--scenario", bigCatalogue(t))
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	if st, out, _ := ctlCall(t, urls["control"], "POST", "/__sim/channels", map[string]any{"name": "CI-B", "like": "DEMOBANK"}); st != http.StatusCreated {
		t.Fatalf("channel CI-B: HTTP %d %s", st, out)
	}
	u, _ := url.Parse(urls["all"])
	stallChannel(t, u.Host)
	// The stall is in place once a verify of A gives up on an exchange.
	for deadline := time.Now().Add(20 * time.Second); ; {
		_, body, _ := ctlCall(t, urls["control"], "POST", "/__sim/verify", map[string]any{"channel": "DEMOBANK", "endpoint": "GetAuthToken", "times": 0})
		if strings.Contains(string(body), `"unsettled"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stalled client never left an exchange unsettled: %s", body)
		}
	}

	type verdict struct {
		OK        bool
		Unsettled *struct {
			Seq  uint64
			Note string
		}
	}
	verify := func(channel string) (verdict, time.Duration) {
		t.Helper()
		start := time.Now()
		st, body, _ := ctlCall(t, urls["control"], "POST", "/__sim/verify", map[string]any{"channel": channel, "endpoint": "GetAuthToken", "times": 0})
		took := time.Since(start)
		var v verdict
		if err := json.Unmarshal(body, &v); err != nil || st != http.StatusOK || !v.OK {
			t.Fatalf("verify %s: HTTP %d %s %v", channel, st, body, err)
		}
		return v, took
	}
	journalRead := func(query string) (string, time.Duration) {
		t.Helper()
		start := time.Now()
		res, err := (&http.Client{Timeout: 10 * time.Second}).Get(urls["control"] + "/__sim/journal?limit=1" + query)
		if err != nil {
			t.Fatalf("journal%s: %v", query, err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("journal%s: HTTP %d", query, res.StatusCode)
		}
		return res.Header.Get("X-Rewardsim-Unsettled"), time.Since(start)
	}

	bound := journalSettleWait / 2
	for i := range 3 {
		if v, took := verify("CI-B"); v.Unsettled != nil || took > bound {
			t.Errorf("verify of CI-B #%d beside DEMOBANK's stalled client: %v, unsettled %+v; want at once (under %v), nothing left out", i, took, v.Unsettled, bound)
		} else {
			t.Logf("verify of CI-B answered in %v", took.Round(time.Millisecond))
		}
		if un, took := journalRead("&channel=CI-B"); un != "" || took > bound {
			t.Errorf("journal of CI-B #%d: %v, unsettled %q; want at once (under %v)", i, took, un, bound)
		} else {
			t.Logf("journal of CI-B answered in %v", took.Round(time.Millisecond))
		}
	}
	v, took := verify("DEMOBANK")
	if v.Unsettled == nil || v.Unsettled.Seq == 0 || !strings.Contains(v.Unsettled.Note, "not read") || took < journalSettleWait/2 {
		t.Fatalf("verify of DEMOBANK, whose client stalls: %v, unsettled %+v; want it to wait and name the exchange", took, v.Unsettled)
	}
	t.Logf("verify of DEMOBANK answered in %v, leaving out exchange %d", took.Round(time.Millisecond), v.Unsettled.Seq)
	if un, took := journalRead(""); un == "" {
		t.Errorf("journal of every channel: %v, no X-Rewardsim-Unsettled; want the stalled exchange named", took)
	}
}

// journalSettleWait is journal.SettleWait (an internal package's
// constant, which this process-level test cannot import).
const journalSettleWait = 2 * time.Second
