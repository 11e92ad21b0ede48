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
// log-normal profile of median 2s, while another channel's undelayed
// calls are timed. It reports the server's peak resident memory
// (peak_rss_MB, against idle_rss_MB before the load) and the other
// channel's p99 while the calls are held (other_p99_ms) beside the same
// figure measured before, in the same run (other_p99_base_ms). Run with
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
	other := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	timeOther := func() []time.Duration {
		var ds []time.Duration
		for range 300 {
			d, err := catalogueOf(context.Background(), other, base, "OTHER", "OTHERKEY:OTHERSEC", nil)
			if err != nil {
				b.Fatalf("OTHER's call: %v", err)
			}
			ds = append(ds, d)
		}
		return ds
	}
	timeOther() // warm up
	baseP99 := p99(timeOther())
	idle := procKB(cmd.Process.Pid, "VmRSS")
	ctl("POST", "/__sim/latency", `{"endpoint":"getCatalogue","channel":"DEMOBANK","lognormal":{"median":"2s","p99":"4s"},"max":"8s","seed":1}`)

	b.ResetTimer()
	for range b.N {
		heldClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: held, MaxConnsPerHost: 0, DisableKeepAlives: true}}
		var wrote, failed atomic.Int64
		var wg sync.WaitGroup
		for range held {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := catalogueOf(context.Background(), heldClient, base, "DEMOBANK", "DEMOAPPKEY:DEMOSECKEY", func() { wrote.Add(1) }); err != nil {
					failed.Add(1)
				}
			}()
		}
		deadline := time.Now().Add(time.Minute) // a liveness bound, not a speed claim
		for wrote.Load() < held && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		during := p99(timeOther())
		peak := procKB(cmd.Process.Pid, "VmHWM")
		wg.Wait()
		if failed.Load() > 0 {
			b.Errorf("%d of %d held calls failed", failed.Load(), held)
		}
		b.ReportMetric(float64(wrote.Load()), "held_calls")
		b.ReportMetric(peak/1024, "peak_rss_MB")
		b.ReportMetric(idle/1024, "idle_rss_MB")
		b.ReportMetric(float64(during.Microseconds())/1000, "other_p99_ms")
		b.ReportMetric(float64(baseP99.Microseconds())/1000, "other_p99_base_ms")
	}
}
