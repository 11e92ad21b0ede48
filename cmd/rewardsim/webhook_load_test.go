package main

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/certs"
)

// silentReceiver accepts connections and never answers.
func silentReceiver(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(io.Discard, c); c.Close() }()
		}
	}()
	return "http://" + ln.Addr().String() + "/hook"
}

// ctlCall sends a JSON control call and returns status, body and latency.
func ctlCall(t *testing.T, control, method, path string, body any) (int, []byte, time.Duration) {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, control+path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, out, time.Since(start)
}

func registerWebhookChannel(t *testing.T, control, name, url string) {
	t.Helper()
	crt, _ := fs.ReadFile(certs.FS, "publisher-dev.crt")
	st, out, _ := ctlCall(t, control, "POST", "/__sim/channels", map[string]any{"name": name, "channelId": name + "-ID",
		"certificate": string(crt), "appKey": name + "-APP", "secKey": name + "-SEC", "webhookUrl": url})
	if st != http.StatusCreated {
		t.Fatalf("register %s: HTTP %d %s", name, st, out)
	}
}

// cpuTicks is the process's user+system time in clock ticks.
func cpuTicks(t *testing.T, pid int) int64 {
	t.Helper()
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// Issue 23 done-when: with a receiver that never answers, 8 schedules
// and a clock move each answer within 1 s (they once waited out the 5 s
// deadline, one push at a time, then up to 500 ms each), naming what
// became due, none of it attempted yet; the pushes are then attempted
// and journaled as timed out per their 2 s deadline. A channel's pending
// pushes are bounded (429 beyond 10,000). Also measured: scheduling
// latency with 10,000 pending and the idle CPU they cost.
func TestServe_webhooksOffTheRequestPath(t *testing.T) {
	cmd, urls := startServe(t, buildBinary(t), t.TempDir())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	control := urls["control"]
	registerWebhookChannel(t, control, "SILENT", silentReceiver(t))
	silentPush := func(offer string) map[string]any {
		return map[string]any{"channel": "SILENT", "offerId": offer, "reason": "OUT_OF_STOCK", "deadline": "2s", "retry": map[string]any{"kind": "none"}}
	}
	type answer struct {
		Pushes        []struct{ ID string }
		FiredWebhooks int
		BecameDue     []struct{ ID, State string }
	}
	// notAttempted says what is wrong with an answer's becameDue: each
	// push is waiting for a worker or being attempted, none answered.
	notAttempted := func(a answer, want int) string {
		if len(a.BecameDue) < want {
			return "becameDue lists " + strconv.Itoa(len(a.BecameDue)) + " pushes, want " + strconv.Itoa(want)
		}
		for _, d := range a.BecameDue {
			if d.State != "due" && d.State != "delivering" {
				return "push " + d.ID + " is " + d.State + ", want due or delivering"
			}
		}
		return ""
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	var ids []string
	slow := make(chan string, 8)
	for i := range 8 {
		wg.Go(func() {
			st, out, took := ctlCall(t, control, "POST", "/__sim/webhooks", silentPush("O1-"+strconv.Itoa(i)))
			var a answer
			_ = json.Unmarshal(out, &a)
			if st != http.StatusCreated || took > time.Second || len(a.Pushes) != 1 {
				slow <- "schedule: HTTP " + strconv.Itoa(st) + " in " + took.String() + ": " + string(out)
				return
			}
			if why := notAttempted(a, 1); why != "" {
				slow <- "schedule: " + why + ": " + string(out)
			}
			mu.Lock()
			ids = append(ids, a.Pushes[0].ID)
			mu.Unlock()
		})
	}
	wg.Wait()
	close(slow)
	for s := range slow {
		t.Error(s)
	}
	// Eight more pushes due in 30 minutes all become due on one clock move.
	_, raw, _ := ctlCall(t, control, "GET", "/__sim/clock", nil)
	var clk struct{ Now time.Time }
	_ = json.Unmarshal(raw, &clk)
	ahead := silentPush("O2")
	ahead["at"], ahead["repeat"] = clk.Now.Add(30*time.Minute).Format(time.RFC3339), 8
	st, out, _ := ctlCall(t, control, "POST", "/__sim/webhooks", ahead)
	var a answer
	if err := json.Unmarshal(out, &a); st != http.StatusCreated || err != nil || len(a.Pushes) != 8 {
		t.Fatalf("schedule ahead: HTTP %d %s", st, out)
	}
	for _, p := range a.Pushes {
		ids = append(ids, p.ID)
	}
	st, out, took := ctlCall(t, control, "POST", "/__sim/clock/advance", map[string]any{"by": "1h"})
	a = answer{}
	if err := json.Unmarshal(out, &a); st != http.StatusOK || err != nil || took > time.Second || a.FiredWebhooks != 8 {
		t.Fatalf("clock move with 8 due pushes for a silent receiver: HTTP %d in %s: %s", st, took, out)
	}
	if why := notAttempted(a, 8); why != "" {
		t.Fatalf("clock move: %s: %s", why, out)
	}
	t.Logf("8 schedules and a clock move beside a silent receiver each within 1 s (clock move %s)", took)

	// Then each push is attempted, in the background, and fails at its deadline.
	for _, id := range ids {
		st, out, _ := ctlCall(t, control, "GET", "/__sim/webhooks/"+id+"?wait=8s", nil)
		var p struct {
			State    string
			Attempts []struct{ Error string }
		}
		if err := json.Unmarshal(out, &p); st != http.StatusOK || err != nil || p.State != "failed" || len(p.Attempts) != 1 ||
			!strings.Contains(p.Attempts[0].Error, "no answer within the 2s deadline") {
			t.Errorf("push %s: HTTP %d %s, want failed: no answer within the 2s deadline", id, st, out)
		}
	}
	st, out, _ = ctlCall(t, control, "GET", "/__sim/journal?kind=webhook&channel=SILENT&limit=100", nil)
	var page struct{ Entries []struct{ Error string } }
	if err := json.Unmarshal(out, &page); st != http.StatusOK || err != nil || len(page.Entries) != 16 {
		t.Fatalf("journal of SILENT's attempts: HTTP %d, %d entries, want 16: %.300s", st, len(page.Entries), out)
	}
	for _, e := range page.Entries {
		if !strings.Contains(e.Error, "no answer within the 2s deadline") {
			t.Errorf("journaled attempt: %q, want the deadline named", e.Error)
		}
	}

	// 10,000 pending pushes of one channel, due far ahead.
	registerWebhookChannel(t, control, "FAR", silentReceiver(t))
	var lat []time.Duration
	for range 1000 {
		st, out, took := ctlCall(t, control, "POST", "/__sim/webhooks", map[string]any{"channel": "FAR", "offerId": "O1",
			"reason": "OUT_OF_STOCK", "at": "2099-01-01T00:00:00Z", "repeat": 10})
		if st != http.StatusCreated {
			t.Fatalf("schedule: HTTP %d %s", st, out)
		}
		lat = append(lat, took)
	}
	st, out, _ = ctlCall(t, control, "POST", "/__sim/webhooks", map[string]any{"channel": "FAR", "offerId": "O1", "reason": "OUT_OF_STOCK", "at": "2099-01-01T00:00:00Z"})
	if st != http.StatusTooManyRequests || !strings.Contains(string(out), "pending pushes") {
		t.Fatalf("push 10,001 of a channel: HTTP %d %s, want 429 naming the bound", st, out)
	}
	slices.Sort(lat)
	t.Logf("scheduling 10 pushes a call up to 10,000 pending: p50 %s, p99 %s", lat[len(lat)/2], lat[len(lat)*99/100])
	before, start := cpuTicks(t, cmd.Process.Pid), time.Now()
	time.Sleep(5 * time.Second)
	ticks := cpuTicks(t, cmd.Process.Pid) - before
	t.Logf("idle with 10,000 pending pushes: %.1f%% of a core (%d ticks in %s)", float64(ticks)/100/time.Since(start).Seconds()*100, ticks, time.Since(start).Round(time.Millisecond))
	healthWithin(t, control, time.Second)
}
