package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// catalogueOf is one getCatalogue call of channel with its credentials,
// timed; an error or non-200 answer is counted by the caller.
func catalogueOf(ctx context.Context, hc *http.Client, base, channel, key string, wrote func()) (time.Duration, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/getCatalogue", strings.NewReader(`{"channelName":"`+channel+`"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CHANNELID", channel)
	req.Header.Set("Authorization", "ServiceAppKey "+key)
	if wrote != nil {
		req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { wrote() }}))
	}
	start := time.Now()
	res, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return 0, &os.SyscallError{Syscall: "HTTP " + strconv.Itoa(res.StatusCode)}
	}
	return time.Since(start), nil
}

// procKB reads a VmRSS-like field (kB) of pid's /proc status.
func procKB(pid int, field string) float64 {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(l, field+":"); ok {
			f := strings.Fields(rest)
			n, _ := strconv.ParseFloat(f[0], 64)
			return n
		}
	}
	return -1
}

// p99 of ds, sorted in place.
func p99(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)*99/100]
}

// BenchmarkLatency_tenThousandInFlight (issue 53 item 5): a real
// `rewardsim serve` holds 10,000 getCatalogue calls of DEMOBANK under a
// log-normal profile of median 2s (p99 3s, seed 1), sent over about half
// a second, while
// another channel's undelayed calls are timed one after another
// throughout. It reports the server's peak resident memory over the
// whole run (peak_rss_MB, beside idle_rss_MB before it), the most calls
// held at once by the server's own count (held_max), and the other
// channel's p99: while all 10,000 were held, from the server counting
// them all to the first answer (other_p99_held_ms), over the whole load,
// the arrival and answering bursts included (other_p99_load_ms), and
// before the load in the same run (other_p99_base_ms). Run with
// -benchtime=1x; it needs 10,000 file descriptors on each side.
func BenchmarkLatency_tenThousandInFlight(b *testing.B) {
	const held = 10000
	bin := buildBinary(b)
	cmd, urls := startServe(b, bin, b.TempDir(), "--max-connections", "12000")
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	ctl := func(method, path, body string) {
		req, _ := http.NewRequest(method, urls["control"]+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		out, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode >= 300 {
			b.Fatalf("%s %s: HTTP %d %s", method, path, res.StatusCode, out)
		}
	}
	ctl("POST", "/__sim/channels", `{"name":"OTHER","appKey":"OTHERKEY","secKey":"OTHERSEC","like":"DEMOBANK"}`)
	base := urls["all"]
	other := otherTimer{hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}, base: base, t0: time.Now()}
	stop := other.run(b)
	time.Sleep(2 * time.Second) // the baseline, in this run
	idle := procKB(cmd.Process.Pid, "VmRSS")
	ctl("POST", "/__sim/latency", `{"endpoint":"getCatalogue","channel":"DEMOBANK","lognormal":{"median":"2s","p99":"3s"},"max":"8s","seed":1}`)

	b.ResetTimer()
	for range b.N {
		loadAt := other.since()
		// A connection per held call, closed once answered: an idle
		// keep-alive connection costs net/http a goroutine and its two
		// buffers (about 12 KB) whatever the simulator does, and that is
		// not the held call's cost.
		heldClient := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		var failed atomic.Int64
		var firstAnswer atomic.Int64
		var wg sync.WaitGroup
		for i := range held {
			if i%100 == 99 {
				// Paced over about half a second: 10,000 dials at once
				// overflow the listen backlog, and the retried SYNs (1s,
				// 3s) would spread the arrivals past the first answers.
				time.Sleep(5 * time.Millisecond)
			}
			wg.Go(func() {
				if _, err := catalogueOf(context.Background(), heldClient, base, "DEMOBANK", "DEMOAPPKEY:DEMOSECKEY", nil); err != nil {
					failed.Add(1)
					return
				}
				firstAnswer.CompareAndSwap(0, int64(other.since()))
			})
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		var heldMax float64
		allHeldAt := time.Duration(-1)
	poll:
		for {
			select {
			case <-done:
				break poll
			case <-time.After(10 * time.Millisecond):
			}
			if n := metric(b, urls["control"], "rewardsim_calls_held"); n > heldMax {
				heldMax = n
				if n >= held && allHeldAt < 0 {
					allHeldAt = other.since()
				}
			}
		}
		endAt := other.since()
		stop()
		if failed.Load() > 0 {
			b.Errorf("%d of %d held calls failed", failed.Load(), held)
		}
		first := time.Duration(firstAnswer.Load())
		b.ReportMetric(heldMax, "held_max")
		b.ReportMetric(procKB(cmd.Process.Pid, "VmHWM")/1024, "peak_rss_MB")
		b.ReportMetric(idle/1024, "idle_rss_MB")
		if allHeldAt >= 0 {
			b.ReportMetric(other.p99(allHeldAt, first), "other_p99_held_ms")
		}
		b.ReportMetric(other.p99(loadAt, endAt), "other_p99_load_ms")
		b.ReportMetric(other.p99(0, loadAt), "other_p99_base_ms")
	}
}

// otherTimer times another channel's undelayed calls, one after another,
// each noted by when it was sent.
type otherTimer struct {
	hc   *http.Client
	base string
	t0   time.Time
	mu   sync.Mutex
	at   []time.Duration
	took []time.Duration
}

func (o *otherTimer) since() time.Duration { return time.Since(o.t0) }

// run times calls until the returned stop is called.
func (o *otherTimer) run(b *testing.B) (stop func()) {
	quit, over := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(over)
		for {
			select {
			case <-quit:
				return
			case <-time.After(2 * time.Millisecond):
			}
			at := o.since()
			d, err := catalogueOf(context.Background(), o.hc, o.base, "OTHER", "OTHERKEY:OTHERSEC", nil)
			if err != nil {
				b.Errorf("OTHER's call: %v", err)
				return
			}
			o.mu.Lock()
			o.at, o.took = append(o.at, at), append(o.took, d)
			o.mu.Unlock()
		}
	}()
	return func() { close(quit); <-over }
}

// p99 is the p99 in ms of the calls sent and answered between from and to.
func (o *otherTimer) p99(from, to time.Duration) float64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	var in []time.Duration
	for i, at := range o.at {
		if at >= from && at+o.took[i] <= to {
			in = append(in, o.took[i])
		}
	}
	if len(in) == 0 {
		return -1
	}
	return float64(p99(in).Microseconds()) / 1000
}
