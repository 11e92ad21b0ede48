package main

// Measuring a target: its requests, the stretches it and its baseline
// alternate in, and the figures they give.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewardsim/rewardsim/sim/publisher"
)

// target is one measured load: next builds request i; a 200 whose body
// holds want counts as done. limit > 0 caps the requests (prepared ones).
type target struct {
	name  string
	next  func(i int) *http.Request
	want  string
	limit int
}

type result struct {
	name      string
	n, errs   int
	rate      float64 // answered requests per second
	serverCPU float64 // server CPU µs per request
	p50, p99  time.Duration
	firstErr  string
	// written: what the target's bbolt files wrote during its stretches
	// (ok: the server answered /__sim/debug/store).
	written written
}

// written is the delta of /__sim/debug/store's counters over a stretch.
type written struct {
	ok                         bool
	statePages, stateBytes     int64
	stateCommits               int64
	journalPages, journalBytes int64
}

// storeCounters reads p's write counters (rewardsim serve --debug-pprof);
// ok false for a baseline or a build without them.
func storeCounters(p *proc) (w written) {
	ctl, ok := p.urls["control"]
	if !ok {
		return w
	}
	var ans struct {
		State, Journal struct{ Pages, Bytes, Commits int64 }
	}
	res, err := client.Get(ctl + "/__sim/debug/store")
	if err != nil {
		return w
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || json.NewDecoder(res.Body).Decode(&ans) != nil {
		return w
	}
	return written{ok: true, statePages: ans.State.Pages, stateBytes: ans.State.Bytes, stateCommits: ans.State.Commits,
		journalPages: ans.Journal.Pages, journalBytes: ans.Journal.Bytes}
}

// minus is w less an earlier reading.
func (w written) minus(b written) written {
	return written{ok: w.ok && b.ok, statePages: w.statePages - b.statePages, stateBytes: w.stateBytes - b.stateBytes,
		stateCommits: w.stateCommits - b.stateCommits, journalPages: w.journalPages - b.journalPages, journalBytes: w.journalBytes - b.journalBytes}
}

func (w written) plus(b written) written {
	return written{ok: w.ok || b.ok, statePages: w.statePages + b.statePages, stateBytes: w.stateBytes + b.stateBytes,
		stateCommits: w.stateCommits + b.stateCommits, journalPages: w.journalPages + b.journalPages, journalBytes: w.journalBytes + b.journalBytes}
}

// perExchange says what each answered request wrote: state pages and
// bytes, state commits' share, journal pages ("" when unknown).
func (r result) perExchange() string {
	w, n := r.written, float64(r.n+r.errs)
	if !w.ok || n == 0 {
		return ""
	}
	return fmt.Sprintf("state %.2f pages (%.1f KB) in %.3f commits, journal %.2f pages", float64(w.statePages)/n, float64(w.stateBytes)/n/1024,
		float64(w.stateCommits)/n, float64(w.journalPages)/n)
}

var client = &http.Client{Transport: &http.Transport{
	MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256, DisableCompression: true,
}}

// sample is one or more timed stretches of load on a target.
type sample struct {
	n, errs  int
	el, cpu  time.Duration
	lat      []time.Duration
	firstErr string
	next     int // the request index the next stretch starts from
	written  written
}

// add appends stretch b to a.
func (a *sample) add(b sample) {
	a.n, a.errs, a.el, a.cpu, a.next = a.n+b.n, a.errs+b.errs, a.el+b.el, a.cpu+b.cpu, b.next
	a.lat = append(a.lat, b.lat...)
	a.written = a.written.plus(b.written)
	if a.firstErr == "" {
		a.firstErr = b.firstErr
	}
}

func (s sample) result(name string) result {
	r := result{name: name, n: s.n, errs: s.errs, firstErr: s.firstErr, written: s.written}
	if r.n > 0 {
		slices.Sort(s.lat)
		f := s.fig()
		r.rate, r.serverCPU = f.rate, f.cpu
		r.p50, r.p99 = s.lat[r.n/2], s.lat[r.n*99/100]
	}
	return r
}

func measure(t target, server *proc, d time.Duration) result {
	return stretch(t, server, d, 0).result(t.name)
}

// stretch loads t for d, its requests numbered from from on (a target
// measured in stretches makes new users and transactions in each).
func stretch(t target, server *proc, d time.Duration, from int) sample {
	var (
		idx      atomic.Int64
		errs     atomic.Int64
		firstErr atomic.Value
		mu       sync.Mutex
		lat      []time.Duration
		wg       sync.WaitGroup
	)
	idx.Store(int64(from))
	w0 := storeCounters(server)
	deadline := time.Now().Add(d)
	cpu0, t0 := server.cpu(), time.Now()
	for range *conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for time.Now().Before(deadline) {
				i := int(idx.Add(1) - 1)
				if t.limit > 0 && i >= t.limit {
					break
				}
				req := t.next(i)
				s := time.Now()
				res, err := client.Do(req)
				var body []byte
				if err == nil {
					body, err = io.ReadAll(res.Body)
					res.Body.Close()
					if err == nil && (res.StatusCode != 200 || !bytes.Contains(body, []byte(t.want))) {
						err = fmt.Errorf("HTTP %d: %.200s", res.StatusCode, body)
					}
				}
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				mine = append(mine, time.Since(s))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	s := sample{n: len(lat), errs: int(errs.Load()), el: time.Since(t0), cpu: server.cpu() - cpu0, lat: lat, next: int(idx.Load())}
	// Read after the clock stops; the journal's writer may still hold a
	// last batch, which the next stretch then counts.
	s.written = storeCounters(server).minus(w0)
	if t.limit > 0 {
		s.next = min(s.next, t.limit)
	}
	if fe, ok := firstErr.Load().(string); ok {
		s.firstErr = fe
	}
	return s
}

func post(url, bearer string, body []byte, header http.Header) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	return req
}

func get(url, bearer string) *http.Request {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	return req
}

func sealed(c *publisher.Client, payload any) []byte {
	env, err := publisher.Seal(c.Key, c.ChannelID, payload)
	if err != nil {
		panic(err)
	}
	b, _ := json.Marshal(env)
	return b
}

// extent is the least and the greatest of f over rs (not empty).
func extent(rs []result, f func(result) float64) (lo, hi float64) {
	lo, hi = f(rs[0]), f(rs[0])
	for _, r := range rs[1:] {
		lo, hi = min(lo, f(r)), max(hi, f(r))
	}
	return lo, hi
}

// baselineOf is the baseline a target's goal is a ratio to ("": none).
func baselineOf(name string) string {
	switch {
	case strings.HasSuffix(name, "-disk"):
		return "durable-write"
	case slices.Contains([]string{"GetReward-new-card", "fetchCouponCode-new-claim", "listing-10-cards", "microsite-page"}, name):
		return "echo"
	case name == "getSecuredReferenceToken":
		return "sign-go" // issue 56: against the pure-Go signed handler
	case slices.Contains([]string{"GetAuthToken", "GenerateSessionInfoV2", "FetchRewardInfo", "GetScratchCardForBank"}, name):
		return "sign-libcrypto"
	}
	return ""
}

// spread prints each baseline's runs, slowest to fastest: how much the
// machine drifted during the run.
func spread(runs map[string][]result) {
	for _, b := range []string{"echo", "sign-libcrypto", "durable-write"} {
		rs := runs[b]
		if len(rs) < 2 {
			continue
		}
		rate := func(r result) float64 { return r.rate }
		cpu := func(r result) float64 { return r.serverCPU }
		lo, hi := extent(rs, rate)
		cpuLo, cpuHi := extent(rs, cpu)
		note := ""
		if lo > 0 && hi/lo > 1.2 {
			note = " (over 1.2x apart: the machine was not quiet; each ratio above is to the baseline measured alongside its target)"
		}
		fmt.Printf("%s, %d runs: %.0f to %.0f req/s, cpu %.0f to %.0f µs%s\n", b, len(rs), lo, hi, cpuLo, cpuHi, note)
	}
}

// rssFigure is a server's RssAnon under the mixed load: the most seen and
// the last.
type rssFigure struct{ max, end int64 }

// mixedLoad runs durable writes, reads and signed calls together for
// -mixed on each side's --durability process server, sampling its
// RssAnon each half second; with -against the two alternate in
// -stretches stretches (ABBA), each getting -mixed of load in all. It
// runs only for a run of every target (no -only).
func mixedLoad(ss []*side) []rssFigure {
	figs := make([]rssFigure, len(ss))
	if *mixed <= 0 || *only != "" {
		return figs
	}
	n := 1
	if len(ss) > 1 {
		n = max(1, *stretches)
	}
	step := *mixed / time.Duration(n)
	arms := make([]arm, len(ss))
	for j, s := range ss {
		arms[j] = arm{mixTarget(s), s.srv}
	}
	samples := make([]sample, len(ss))
	for i := range n {
		for _, j := range abba(len(arms), i) {
			one, peak := sampleRSS(arms[j], step, samples[j].next)
			samples[j].add(one)
			figs[j].end = arms[j].p.rssAnon()
			figs[j].max = max(figs[j].max, peak, figs[j].end)
		}
	}
	for j, s := range ss {
		r := samples[j].result("mixed")
		name := "mixed (RssAnon)"
		if s.label != "" {
			name += ", " + s.label
		}
		fmt.Printf("%-26s %9.0f req/s  %7.0f server-cpu-µs/req  (n=%d, %d errors) over %s\n", name, r.rate, r.serverCPU, r.n, r.errs, *mixed)
	}
	return figs
}

// mixTarget is s's unbounded --durability process targets in turn.
func mixTarget(s *side) target {
	var mix []target
	for _, a := range s.arms {
		if a.p == s.srv && a.t.limit == 0 {
			mix = append(mix, a.t)
		}
	}
	offset := 1 << 20 // fresh users and transactions, apart from the runs above
	return target{name: "mixed", want: "", next: func(i int) *http.Request {
		return mix[i%len(mix)].next(offset + i)
	}}
}

// sampleRSS loads a for d from request from on, and returns the load and
// the most RssAnon its server held, read each half second.
func sampleRSS(a arm, d time.Duration, from int) (sample, int64) {
	done := make(chan sample)
	go func() { done <- stretch(a.t, a.p, d, from) }()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	var peak int64
	for {
		select {
		case s := <-done:
			return s, peak
		case <-tick.C:
			peak = max(peak, a.p.rssAnon())
		}
	}
}

// report prints each target of issues 14 and 25 with its ratio and verdict.
// chosen reports whether -only names target (or names none).
func chosen(target string) bool {
	return *only == "" || slices.Contains(strings.Split(*only, ","), target)
}
