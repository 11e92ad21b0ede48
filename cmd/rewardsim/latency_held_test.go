package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// metric is the value of a gauge of a real serve's /__sim/metrics (-1:
// not shown).
func metric(t testing.TB, control, name string) float64 {
	t.Helper()
	res, err := http.Get(control + "/__sim/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return -1
}

// simPost posts body to a real serve's control path, failing tb on an
// error or an answer of 300 or over.
func simPost(tb testing.TB, control, path, body string) {
	tb.Helper()
	res, err := http.Post(control+path, "application/json", strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	out, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode >= 300 {
		tb.Fatalf("POST %s: HTTP %d %s", path, res.StatusCode, out)
	}
}

// TestLatency_heldCallsHoldATimerNotAWorker (issue 53 item 5): 1,000
// getCatalogue calls held by a fixed 6s profile in a real serve are
// parked: the process keeps no goroutine per held call (the structural
// half of the memory bound; BenchmarkLatency_tenThousandInFlight measures
// 10,000), every call is answered after its draw on the connection it
// came on, the journal numbers each once with the held time in its
// latency, a client that hangs up while held is journaled as gone, and
// the channel's in-flight limit counts held calls until they are answered
// (CAP-1).
func TestLatency_heldCallsHoldATimerNotAWorker(t *testing.T) {
	const held = 1000
	bin := buildBinary(t)
	cmd, urls := startServe(t, bin, t.TempDir(), "--max-connections", "2000")
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	simPost(t, urls["control"], "/__sim/latency", `{"endpoint":"getCatalogue","channel":"DEMOBANK","fixed":"6s"}`)
	simPost(t, urls["control"], "/__sim/limits", `{"channel":"DEMOBANK","inFlight":1001}`)
	idle := metric(t, urls["control"], "go_goroutines")

	// One client hangs up while held.
	addr := strings.TrimPrefix(urls["all"], "http://")
	gone, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	body := `{"channelName":"DEMOBANK"}`
	_, _ = gone.Write([]byte("POST /api/getCatalogue HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nX-CHANNELID: DEMOBANK\r\nAuthorization: ServiceAppKey DEMOAPPKEY:DEMOSECKEY\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body))

	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: held}}
	defer hc.CloseIdleConnections()
	type answer struct {
		took time.Duration
		err  error
	}
	answers := make(chan answer, held)
	var wg sync.WaitGroup
	for range held {
		wg.Go(func() {
			d, err := catalogueOf(context.Background(), hc, urls["all"], "DEMOBANK", "DEMOAPPKEY:DEMOSECKEY", nil)
			answers <- answer{d, err}
		})
	}
	deadline := time.Now().Add(time.Minute) // liveness, not speed
	for metric(t, urls["control"], "rewardsim_calls_held") < held+1 {
		if time.Now().After(deadline) {
			t.Fatalf("%v calls held, want %d", metric(t, urls["control"], "rewardsim_calls_held"), held+1)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if g := metric(t, urls["control"], "go_goroutines"); g > idle+100 {
		t.Errorf("%v goroutines with %d calls held (%v idle): a held call must hold a timer, not a goroutine", g, held+1, idle)
	}
	// The in-flight limit counts the held calls: one more is refused.
	var refused *os.SyscallError // catalogueOf's word for a non-200 answer
	if _, err := catalogueOf(context.Background(), http.DefaultClient, urls["all"], "DEMOBANK", "DEMOAPPKEY:DEMOSECKEY", nil); !errors.As(err, &refused) || refused.Syscall != "HTTP 503" {
		t.Errorf("a call over the in-flight limit of 1001 while 1001 are held: %#v, want HTTP 503", err)
	}
	gone.Close()
	wg.Wait()
	close(answers)
	for a := range answers {
		if a.err != nil {
			t.Fatalf("a held call: %v", a.err)
		}
		if a.took < 6*time.Second {
			t.Fatalf("a held call answered after %v, before its 6s draw", a.took)
		}
	}
	// Answered, they give their places back.
	if _, err := catalogueOf(context.Background(), http.DefaultClient, urls["all"], "DEMOBANK", "DEMOAPPKEY:DEMOSECKEY", nil); err != nil {
		t.Errorf("a call once the held ones were answered: %v", err)
	}
	type entry struct {
		Seq        uint64
		LatencyMs  float64
		Status     int
		ClientGone bool
	}
	var entries []entry
	for after := uint64(0); ; {
		var page struct{ Entries []entry }
		res, err := http.Get(urls["control"] + "/__sim/journal?channel=DEMOBANK&limit=1000&after=" + strconv.FormatUint(after, 10))
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(res.Body).Decode(&page)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("journal page after %d: HTTP %d %v", after, res.StatusCode, err)
		}
		if len(page.Entries) == 0 {
			break
		}
		entries = append(entries, page.Entries...)
		after = page.Entries[len(page.Entries)-1].Seq
	}
	seqs := map[uint64]bool{}
	var heldOK, goneSeen int
	for _, e := range entries {
		if seqs[e.Seq] {
			t.Errorf("journal number %d given twice", e.Seq)
		}
		seqs[e.Seq] = true
		switch {
		case e.ClientGone:
			goneSeen++
		case e.Status == http.StatusOK && e.LatencyMs >= 6000:
			heldOK++
		}
	}
	// The held ones and the one after them (held too).
	if heldOK != held+1 || goneSeen != 1 {
		t.Errorf("journal: %d held calls answered 200 after 6s (want %d+1), %d clients gone (want 1), of %d entries", heldOK, held, goneSeen, len(entries))
	}
}
