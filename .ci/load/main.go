// Command load is `make load`: a documented load against a real
// `rewardsim serve` process on loopback, each figure beside baselines
// measured in the same run, printed as the ratios of issue 14's targets.
//
// Baselines run in their own processes (this program re-executed with
// -baseline), built on the same echo and envelope code as rewardsim:
//
//	echo            GET, a fixed 300-byte JSON answer (the HTTP stack alone)
//	sign-go         POST an envelope: verify its SIGN, sign an answer, crypto/rsa
//	sign-libcrypto  the same through libcrypto (OpenSSL 3)
//	durable-write   POST a GetReward body: decode it and store it through a
//	                leader-based bbolt group commit with fsync (the
//	                durable-write ceiling of this disk at -conns connections)
//
// The write targets (GetReward, fetchCouponCode) run against two
// rewardsim processes: the default `--durability process` and
// `--durability disk`; the first is held to echo, the second to the
// durable-write ceiling (issue 25).
//
// Every target runs for -duration with -conns keep-alive connections
// from this one client process (the same client for baselines and
// targets, so its own cost cancels out of the ratios). Beside requests/s
// it reports the server's CPU per request (utime+stime from /proc), which
// is steadier than wall-clock throughput on a shared machine.
//
// Each target with a goal is measured alternately with its own baseline
// (-adjacent, the default): -stretches stretches of each, baseline then
// target, and its ratio is to the baseline's stretches. On the shared VM
// the same echo baseline ran at 46k/s and 30k/s minutes apart, and a
// ratio to a baseline measured minutes before the target moved with that
// drift; alternating in one-second stretches, both see the same machine.
// The spread of each baseline's runs is printed: a wide one says the
// machine was not quiet.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"
	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

var (
	bin       = flag.String("bin", "bin/rewardsim", "the rewardsim binary to load")
	certs     = flag.String("certs", "certs", "folder of the development keys (publisher-dev, service-dev)")
	duration  = flag.Duration("duration", 5*time.Second, "how long each target runs")
	conns     = flag.Int("conns", 32, "keep-alive connections per target (wrk -c)")
	mixed     = flag.Duration("mixed", 60*time.Second, "mixed load before reading RssAnon (0: skip)")
	only      = flag.String("only", "", "comma-separated target names to run, start-up among them (default: all)")
	baseline  = flag.String("baseline", "", "internal: serve the baseline handlers with this crypto back end")
	baseData  = flag.String("baseline-data", "", "internal: folder of the durable-write baseline's bbolt file")
	profiles  = flag.String("profile", "", "folder to write each rewardsim target's CPU profile to (serve --debug-pprof; read with go tool pprof)")
	adjacent  = flag.Bool("adjacent", true, "measure each target alternately with its baseline and take the target's ratio to those stretches (false: to the baseline's first run)")
	stretches = flag.Int("stretches", 5, "with -adjacent, how many stretches of -duration/stretches each the target and its baseline alternate in")
)

func main() {
	flag.Parse()
	var err error
	if *baseline != "" {
		err = serveBaseline(*baseline)
	} else {
		err = run()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

// fixed300 is the minimal handler's answer: 300 bytes of JSON.
var fixed300 = func() []byte {
	b := []byte(`{"status":true,"message":"success","pad":"`)
	for len(b) < 298 {
		b = append(b, 'x')
	}
	return append(b, '"', '}')
}()

func serveBaseline(backend string) error {
	if err := sim.UseCrypto(backend); err != nil {
		return err
	}
	keyPEM, err := os.ReadFile(filepath.Join(*certs, "service-dev.key"))
	if err != nil {
		return err
	}
	key, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		return err
	}
	certPEM, err := os.ReadFile(filepath.Join(*certs, "publisher-dev.crt"))
	if err != nil {
		return err
	}
	pub, err := publisher.ParsePublicKeyPEM(certPEM)
	if err != nil {
		return err
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.GET("/echo", func(c echo.Context) error {
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, fixed300)
	})
	// What a signed endpoint does without state: read the envelope,
	// verify it, sign an answer of the same size as a token answer.
	e.POST("/sign", func(c echo.Context) error {
		var env publisher.Envelope
		if err := json.NewDecoder(c.Request().Body).Decode(&env); err != nil {
			return c.String(http.StatusBadRequest, err.Error())
		}
		if err := publisher.Verify(pub, env.BDATA, env.SIGN); err != nil {
			return c.String(http.StatusBadRequest, err.Error())
		}
		ans, err := publisher.Seal(key, "REWARDSIM", map[string]string{"referenceKey": "9Jq3fC0m2v6kXo1R8sYb4LwT7eHdNaUg5pZiQyVxKcE", "expireDate": "2026-11-22 19:00:00"})
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, ans)
	})
	if *baseData != "" {
		// Each run of the ceiling starts on an empty file (POST
		// /durable/fresh between runs), as the first did: its runs then
		// differ by what the machine and its disk were doing, not by
		// how many writes the file already held.
		var (
			mu    sync.Mutex
			g     *groupCommit
			fresh int
		)
		open := func() error {
			mu.Lock()
			defer mu.Unlock()
			if g != nil {
				if err := g.db.Close(); err != nil {
					return err
				}
				os.Remove(g.db.Path())
			}
			fresh++
			db, err := bolt.Open(filepath.Join(*baseData, fmt.Sprintf("ceiling-%d.db", fresh)), 0o600, nil)
			if err != nil {
				return err
			}
			g = &groupCommit{db: db}
			return nil
		}
		if err := open(); err != nil {
			return err
		}
		defer func() { g.db.Close() }()
		e.POST("/durable/fresh", func(c echo.Context) error {
			if err := open(); err != nil {
				return err
			}
			return c.NoContent(http.StatusNoContent)
		})
		e.POST("/durable", func(c echo.Context) error {
			mu.Lock()
			g := g
			mu.Unlock()
			var body struct {
				VirtualID        string `json:"virtualId"`
				ExtTransactionID string `json:"extTransactionId"`
			}
			raw, err := io.ReadAll(c.Request().Body)
			if err == nil {
				err = json.Unmarshal(raw, &body)
			}
			if err != nil {
				return c.String(http.StatusBadRequest, "bad body")
			}
			if err := g.put([]byte(body.VirtualID+"\x00"+body.ExtTransactionID), raw); err != nil {
				return err
			}
			return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, fixed300)
		})
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("baseline listening on http://%s crypto %s\n", l.Addr(), sim.Crypto())
	return http.Serve(l, e)
}

// groupCommit is the durable-write ceiling's leader-based group commit:
// every put that arrives while a commit runs joins the next one, which
// starts as soon as the previous ends; each commit is one fsync.
type groupCommit struct {
	db      *bolt.DB
	mu      sync.Mutex
	pending []groupPut
	leading bool
}

type groupPut struct {
	key, val []byte
	done     chan error
}

func (g *groupCommit) put(key, val []byte) error {
	p := groupPut{key, val, make(chan error, 1)}
	g.mu.Lock()
	g.pending = append(g.pending, p)
	if !g.leading {
		g.leading = true
		go g.lead()
	}
	g.mu.Unlock()
	return <-p.done
}

func (g *groupCommit) lead() {
	for {
		g.mu.Lock()
		batch := g.pending
		g.pending = nil
		if len(batch) == 0 {
			g.leading = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		err := g.db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("writes"))
			if err != nil {
				return err
			}
			for _, p := range batch {
				if err := b.Put(p.key, p.val); err != nil {
					return err
				}
			}
			return nil
		})
		for _, p := range batch {
			p.done <- err
		}
	}
}

// proc is a child server process.
type proc struct {
	cmd     *exec.Cmd
	urls    map[string]string // by the first word of each "listening" line
	stopped sync.Once
}

func start(args []string, lines int) (*proc, error) {
	cmd := exec.Command(args[0], args[1:]...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, urls: map[string]string{}}
	sc := bufio.NewScanner(out)
	for len(p.urls) < lines && sc.Scan() {
		// "rewardsim: all listening on http://..." or "baseline listening on http://..."
		f := strings.Fields(sc.Text())
		if i := slices.Index(f, "listening"); i > 0 && i+2 < len(f) {
			p.urls[strings.TrimSuffix(f[i-1], ":")] = f[i+2]
		}
	}
	if len(p.urls) < lines {
		p.stop()
		return nil, fmt.Errorf("%s did not report its listeners", args[0])
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return p, nil
}

// stop ends the process once; later calls do nothing.
func (p *proc) stop() {
	p.stopped.Do(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		_ = p.cmd.Wait()
	})
}

// cpu is the process's user+system CPU time so far.
func (p *proc) cpu() time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)        // utime, field 14
	st, _ := strconv.ParseInt(f[12], 10, 64)        // stime, field 15
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}

// rssAnon is the process's anonymous resident memory in bytes.
func (p *proc) rssAnon() int64 {
	raw, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

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
}

// add appends stretch b to a.
func (a *sample) add(b sample) {
	a.n, a.errs, a.el, a.cpu, a.next = a.n+b.n, a.errs+b.errs, a.el+b.el, a.cpu+b.cpu, b.next
	a.lat = append(a.lat, b.lat...)
	if a.firstErr == "" {
		a.firstErr = b.firstErr
	}
}

func (s sample) result(name string) result {
	r := result{name: name, n: s.n, errs: s.errs, firstErr: s.firstErr}
	if r.n > 0 {
		slices.Sort(s.lat)
		r.rate = float64(r.n) / s.el.Seconds()
		r.serverCPU = float64(s.cpu.Microseconds()) / float64(r.n+r.errs)
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

func run() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	fmt.Printf("# rewardsim make load: %s, %d CPUs (%s), %s, -conns %d -duration %s\n",
		cpuModel(), runtime.NumCPU(), runtime.GOARCH, time.Now().UTC().Format(time.RFC3339), *conns, *duration)

	// A run of chosen targets skips the five start-ups unless it names them.
	var startupMean, startupWorst time.Duration
	if chosen("start-up") {
		if startupMean, startupWorst, err = measureStartup(); err != nil {
			return err
		}
	}

	ceilingData, err := os.MkdirTemp("", "rewardsim-ceiling-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(ceilingData)
	baseGo, err := start([]string{self, "-baseline", "go", "-certs", *certs, "-baseline-data", ceilingData}, 1)
	if err != nil {
		return err
	}
	defer baseGo.stop()
	baseLC, err := start([]string{self, "-baseline", "libcrypto", "-certs", *certs}, 1)
	if err != nil {
		return fmt.Errorf("libcrypto baseline (is libcrypto.so.3 installed?): %w", err)
	}
	defer baseLC.stop()

	data, err := os.MkdirTemp("", "rewardsim-load-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(data)
	serve := func(durability string) (*proc, *publisher.Client, error) {
		dir := filepath.Join(data, durability)
		args := []string{*bin, "serve", "--data", dir, "--durability", durability, "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0", "--log-level", "error"}
		if *profiles != "" {
			args = append(args, "--debug-pprof", "true")
		}
		p, err := start(args, 2)
		if err != nil {
			return nil, nil, err
		}
		var health struct{ Crypto, Durability string }
		if err := getJSON(p.urls["control"]+"/__sim/health", &health); err != nil {
			p.stop()
			return nil, nil, err
		}
		fmt.Printf("# rewardsim serve pid %d, crypto back end %s, journal on, --durability %s\n", p.cmd.Process.Pid, health.Crypto, health.Durability)
		c, err := newClient(p.urls["all"])
		if err != nil {
			p.stop()
			return nil, nil, err
		}
		return p, c, nil
	}
	srv, c, err := serve("process")
	if err != nil {
		return err
	}
	defer srv.stop()
	targets, err := prepare(c)
	if err != nil {
		return err
	}
	disk, diskClient, err := serve("disk")
	if err != nil {
		return err
	}
	defer disk.stop()
	diskTargets, err := prepare(diskClient)
	if err != nil {
		return err
	}
	results := map[string]result{}
	beside := map[string]result{}     // target -> its baseline's stretches, alternating with it
	baseRuns := map[string][]result{} // baseline -> all its runs
	baselines := map[string]target{}  // baseline name -> how to run it
	baseProcs := map[string]*proc{}   // baseline name -> its process
	signBody := sealed(c, map[string]string{"bName": "DEMOBANK"})
	// Each run of the durable-write ceiling starts on an empty file, as
	// its first did: a yardstick that stays the same length.
	freshCeiling := func(name string) {
		if name != "durable-write" {
			return
		}
		res, err := client.Post(baseGo.urls["baseline"]+"/durable/fresh", "", nil)
		if err == nil {
			res.Body.Close()
			if res.StatusCode != http.StatusNoContent {
				err = fmt.Errorf("HTTP %d", res.StatusCode)
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "load: a fresh durable-write file: %v\n", err)
		}
	}
	runOne := func(t target, p *proc) {
		if !chosen(t.name) {
			return
		}
		var r result
		if b := baselineOf(t.name); *adjacent && b != "" {
			bt, bp := baselines[b], baseProcs[b]
			freshCeiling(b)
			prof := profile(t.name, p, 2**duration)
			step := *duration / time.Duration(max(1, *stretches))
			var bs, ts sample
			for range max(1, *stretches) {
				bOne := stretch(bt, bp, step, bs.next)
				tOne := stretch(t, p, step, ts.next)
				if tOne.n+tOne.errs == 0 { // a bounded target used up
					break
				}
				bs.add(bOne)
				ts.add(tOne)
			}
			if err := prof(); err != nil {
				fmt.Fprintf(os.Stderr, "load: profile of %s: %v\n", t.name, err)
			}
			br := bs.result(b)
			beside[t.name] = br
			baseRuns[b] = append(baseRuns[b], br)
			fmt.Printf("  %-24s %9.0f req/s  %7.0f server-cpu-µs/req  (the baseline of %s, alternating with it)\n", b, br.rate, br.serverCPU, t.name)
			r = ts.result(t.name)
		} else {
			freshCeiling(t.name)
			prof := profile(t.name, p, *duration)
			r = measure(t, p, *duration)
			if err := prof(); err != nil {
				fmt.Fprintf(os.Stderr, "load: profile of %s: %v\n", t.name, err)
			}
		}
		results[t.name] = r
		if _, ok := baselines[t.name]; ok {
			baseRuns[t.name] = append(baseRuns[t.name], r)
		}
		errNote := ""
		if r.errs > 0 {
			errNote = fmt.Sprintf("  %d errors, first: %s", r.errs, r.firstErr)
		}
		fmt.Printf("%-26s %9.0f req/s  %7.0f server-cpu-µs/req  p50 %6.2f ms  p99 %6.2f ms  (n=%d)%s\n",
			t.name, r.rate, r.serverCPU, ms(r.p50), ms(r.p99), r.n, errNote)
	}
	tag := strconv.FormatInt(time.Now().UnixNano(), 36)
	var written atomic.Int64 // durable-write's keys, unique across its runs
	for _, b := range []struct {
		t target
		p *proc
	}{
		{target{name: "echo", next: func(int) *http.Request { return get(baseGo.urls["baseline"]+"/echo", "") }, want: `"pad"`}, baseGo},
		{target{name: "sign-go", next: func(int) *http.Request { return post(baseGo.urls["baseline"]+"/sign", "", signBody, nil) }, want: `"SIGN"`}, baseGo},
		{target{name: "sign-libcrypto", next: func(int) *http.Request { return post(baseLC.urls["baseline"]+"/sign", "", signBody, nil) }, want: `"SIGN"`}, baseLC},
		{target{name: "durable-write", want: `"pad"`, next: func(int) *http.Request {
			i := written.Add(1)
			return post(baseGo.urls["baseline"]+"/durable", "", fmt.Appendf(nil, `{"channelName":"DEMOBANK","virtualId":"DW-%s-%d","triggerEventType":"UPI","extTransactionId":"DWT-%s-%d","amount":100.00,"dateandtime":"15012026100000"}`, tag, i, tag, i), nil)
		}}, baseGo},
	} {
		baselines[b.t.name], baseProcs[b.t.name] = b.t, b.p
		runOne(b.t, b.p)
	}
	for _, t := range targets {
		runOne(t, srv)
	}
	for _, t := range diskTargets {
		if strings.HasPrefix(t.name, "GetReward-") || strings.HasPrefix(t.name, "fetchCouponCode-") {
			t.name += "-disk"
			runOne(t, disk)
		}
	}
	disk.stop() // before the mixed load, which runs against srv alone

	var rssMax, rssEnd int64
	if *mixed > 0 && *only == "" {
		rssMax, rssEnd = mixedLoad(targets, srv)
	}
	report(results, beside, startupMean, startupWorst, rssMax, rssEnd)
	spread(baseRuns)
	return nil
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
	case slices.Contains([]string{"getSecuredReferenceToken", "GetAuthToken", "GenerateSessionInfoV2", "FetchRewardInfo", "GetScratchCardForBank"}, name):
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

// profile starts a CPU profile of p's next d (a rewardsim process with
// --debug-pprof, when -profile is set) and returns a wait for its file.
func profile(name string, p *proc, d time.Duration) func() error {
	ctl, ok := p.urls["control"]
	if *profiles == "" || !ok {
		return func() error { return nil }
	}
	done := make(chan error, 1)
	go func() {
		done <- func() error {
			if err := save(fmt.Sprintf("%s/__sim/debug/pprof/profile?seconds=%d", ctl, max(1, int(d.Seconds()))), name+".pprof"); err != nil {
				return err
			}
			// And what the heap holds once the target has run.
			return save(ctl+"/__sim/debug/pprof/heap", name+".heap.pprof")
		}()
	}()
	time.Sleep(50 * time.Millisecond) // the profile is running before the load starts
	return func() error { return <-done }
}

// save writes what url answers to file under -profile.
func save(url, file string) error {
	res, err := client.Get(url)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", res.StatusCode)
	}
	if err := os.MkdirAll(*profiles, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(*profiles, file))
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, res.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func getJSON(url string, out any) error {
	res, err := client.Get(url)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	return json.NewDecoder(res.Body).Decode(out)
}

func newClient(base string) (*publisher.Client, error) {
	keyPEM, err := os.ReadFile(filepath.Join(*certs, "publisher-dev.key"))
	if err != nil {
		return nil, err
	}
	key, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		return nil, err
	}
	certPEM, err := os.ReadFile(filepath.Join(*certs, "service-dev.crt"))
	if err != nil {
		return nil, err
	}
	svc, err := publisher.ParsePublicKeyPEM(certPEM)
	if err != nil {
		return nil, err
	}
	return &publisher.Client{HTTP: client, RewardsURL: base, BankURL: base, HotdealsURL: base,
		ChannelID: "DEMOBANK", Channel: "DEMOBANK", Key: key, ServiceKey: svc,
		AppKey: "DEMOAPPKEY", SecKey: "DEMOSECKEY"}, nil
}

// prepared bounds the targets that need one prepared (signed) request each.
const prepared = 3000

// prepare makes the tokens, cards and pre-signed bodies the targets need;
// none of it is timed.
func prepare(c *publisher.Client) ([]target, error) {
	ctx := context.Background()
	base := c.RewardsURL
	ref, err := c.ReferenceToken(ctx)
	if err != nil {
		return nil, fmt.Errorf("getSecuredReferenceToken: %w", err)
	}
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	getReward := func(vid, tx string) []byte {
		return fmt.Appendf(nil, `{"channelName":"DEMOBANK","virtualId":%q,"triggerEventType":"UPI","extTransactionId":%q,"amount":100.00,"dateandtime":"15012026100000"}`, vid, tx)
	}

	// A user with ten cards, five revealed: the listing and the microsite.
	const lister = "LIST-USER"
	listTok, err := c.UserToken(ctx, lister)
	if err != nil {
		return nil, err
	}
	for i := range 10 {
		_, ans, err := c.GetReward(ctx, ref.ReferenceKey, json.RawMessage(getReward(lister, "LT"+strconv.Itoa(i))))
		if err != nil || !ans.Status {
			return nil, fmt.Errorf("GetReward: %v %+v", err, ans)
		}
		if i%2 == 0 {
			if _, _, err := c.FetchRewardInfo(ctx, listTok.Token, lister, ans.Rewards[0].RewardID); err != nil {
				return nil, err
			}
		}
	}
	sess, err := c.Session(ctx, lister)
	if err != nil {
		return nil, err
	}

	// Unrevealed cards for FetchRewardInfo: 50 per user (the daily cap).
	fmt.Printf("# preparing %d cards and %d signed requests...\n", prepared, 2*prepared)
	reveal := make([][]byte, 0, prepared)
	revealTok := make([]string, 0, prepared)
	for u := 0; len(reveal) < prepared; u++ {
		vid := fmt.Sprintf("RV-%s-%d", run, u)
		tok, err := c.UserToken(ctx, vid)
		if err != nil {
			return nil, err
		}
		for i := 0; i < 50 && len(reveal) < prepared; i++ {
			_, ans, err := c.GetReward(ctx, ref.ReferenceKey, json.RawMessage(getReward(vid, fmt.Sprintf("RT-%s-%d-%d", run, u, i))))
			if err != nil || !ans.Status {
				return nil, fmt.Errorf("GetReward: %v %+v", err, ans)
			}
			reveal = append(reveal, sealed(c, map[string]string{"rewardId": strconv.FormatUint(ans.Rewards[0].RewardID, 10), "virtualId": vid, "channelName": "DEMOBANK"}))
			revealTok = append(revealTok, tok.Token)
		}
	}
	bank := make([][]byte, prepared)
	for i := range bank {
		bank[i] = sealed(c, publisher.BankCardRequest{VirtualID: fmt.Sprintf("BK-%s-%d", run, i), TransDateAndTime: "2026-01-15 10:00:00",
			Amount: "100.00", MCC: "5411", ExtTransactionID: fmt.Sprintf("BKT-%s-%d", run, i), CampaignID: "CAMP-DEMO"})
	}
	refBody := sealed(c, map[string]string{"bName": "DEMOBANK"})
	authBody := sealed(c, map[string]string{"virtualId": "AUTH-USER", "channelName": "DEMOBANK"})
	sessBody := sealed(c, map[string]string{"bName": "DEMOBANK", "virtualId": lister})
	coupon := c.APIKeyHeader()

	return []target{
		{name: "getSecuredReferenceToken", want: `"SIGN"`, next: func(int) *http.Request {
			return post(base+"/api/getSecuredReferenceToken", "", refBody, nil)
		}},
		{name: "GetAuthToken", want: `"SIGN"`, next: func(int) *http.Request { return post(base+"/api/GetAuthToken", "", authBody, nil) }},
		{name: "GenerateSessionInfoV2", want: `"SIGN"`, next: func(int) *http.Request { return post(base+"/api/GenerateSessionInfoV2", "", sessBody, nil) }},
		{name: "FetchRewardInfo", want: `"SIGN"`, limit: len(reveal), next: func(i int) *http.Request {
			return post(base+"/api/FetchRewardInfo", revealTok[i], reveal[i], nil)
		}},
		{name: "GetScratchCardForBank", want: `"SIGN"`, limit: len(bank), next: func(i int) *http.Request {
			return post(base+"/api/GetScratchCardForBank", "", bank[i], nil)
		}},
		{name: "GetReward-new-card", want: `"status":true`, next: func(i int) *http.Request {
			return post(base+"/api/GetReward", ref.ReferenceKey, getReward(fmt.Sprintf("GR-%s-%d", run, i), fmt.Sprintf("GRT-%s-%d", run, i)), nil)
		}},
		{name: "fetchCouponCode-new-claim", want: `"coupon_code"`, next: func(i int) *http.Request {
			return post(base+"/api/fetchCouponCode", "", fmt.Appendf(nil, `{"offerId":"OFFER-DEMO","virtualId":"CP-%s-%d","channelName":"DEMOBANK","extTransactionId":"CPT-%s-%d","coinsUsed":"100"}`, run, i, run, i), coupon)
		}},
		{name: "listing-10-cards", want: `"total":10`, next: func(int) *http.Request {
			return get(base+"/api/GetAllScratchCardsByUserId?page=1&limit=10", listTok.Token)
		}},
		{name: "microsite-page", want: `class="tile revealed`, next: func(int) *http.Request {
			return get(base+"/microsite?virtualId="+lister+"&sessionId="+sess.SessionID, "")
		}},
	}, nil
}

// mixedLoad runs durable writes, reads and signed calls together for
// -mixed, sampling the server's RssAnon each half second.
func mixedLoad(targets []target, srv *proc) (rssMax, rssEnd int64) {
	var mix []target
	for _, t := range targets {
		if t.limit == 0 { // the unbounded ones
			mix = append(mix, t)
		}
	}
	offset := 1 << 20 // fresh users and transactions, apart from the runs above
	t := target{name: "mixed", want: "", next: func(i int) *http.Request {
		return mix[i%len(mix)].next(offset + i)
	}}
	done := make(chan result)
	go func() { done <- measure(t, srv, *mixed) }()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case r := <-done:
			rssEnd = srv.rssAnon()
			fmt.Printf("%-26s %9.0f req/s  %7.0f server-cpu-µs/req  (n=%d, %d errors) over %s\n", "mixed (RssAnon)", r.rate, r.serverCPU, r.n, r.errs, *mixed)
			return max(rssMax, rssEnd), rssEnd
		case <-tick.C:
			rssMax = max(rssMax, srv.rssAnon())
		}
	}
}

// measureStartup times exec to the first answered health check, from
// outside the process, on a fresh data folder each time.
func measureStartup() (mean, worst time.Duration, err error) {
	const runs = 5
	var total time.Duration
	for range runs {
		port, err := freePort()
		if err != nil {
			return 0, 0, err
		}
		data, err := os.MkdirTemp("", "rewardsim-start-")
		if err != nil {
			return 0, 0, err
		}
		url := fmt.Sprintf("http://127.0.0.1:%d/__sim/health", port)
		t0 := time.Now()
		cmd := exec.Command(*bin, "serve", "--data", data, "--listen", "127.0.0.1:0", "--control-listen", fmt.Sprintf("127.0.0.1:%d", port), "--log-level", "error")
		if err := cmd.Start(); err != nil {
			return 0, 0, err
		}
		var took time.Duration
		for time.Since(t0) < 10*time.Second {
			res, err := client.Get(url)
			if err == nil {
				res.Body.Close()
				if res.StatusCode == 200 {
					took = time.Since(t0)
					break
				}
			}
			time.Sleep(200 * time.Microsecond)
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		os.RemoveAll(data)
		if took == 0 {
			return 0, 0, errors.New("rewardsim serve did not answer its health check within 10s")
		}
		total += took
		worst = max(worst, took)
	}
	return total / runs, worst, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func cpuModel() string {
	raw, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
		}
	}
	return runtime.GOARCH
}

// report prints each target of issues 14 and 25 with its ratio and verdict.
// chosen reports whether -only names target (or names none).
func chosen(target string) bool {
	return *only == "" || slices.Contains(strings.Split(*only, ","), target)
}

func report(r, beside map[string]result, startupMean, startupWorst time.Duration, rssMax, rssEnd int64) {
	// baseOf is the baseline run target's ratio is to: its stretches
	// alternating with target, or (-adjacent=false) its first run.
	baseOf := func(target string) result {
		if b, ok := beside[target]; ok {
			return b
		}
		return r[baselineOf(target)]
	}
	fmt.Println()
	fmt.Println("| target | measured | ratio | goal | met |")
	fmt.Println("|---|---|---|---|---|")
	row := func(name, measured string, ratio float64, goal string, met bool) {
		verdict := "**missed**"
		switch {
		case goal == "":
			goal, verdict = "none", "(reported)"
		case met:
			verdict = "met"
		}
		fmt.Printf("| %s | %s | %.2fx | %s | %s |\n", name, measured, ratio, goal, verdict)
	}
	sgo, slc := r["sign-go"], r["sign-libcrypto"]
	if slc.rate > 0 && sgo.rate > 0 {
		row("sign-libcrypto vs sign-go", fmt.Sprintf("%.0f vs %.0f/s (cpu %.0f vs %.0f µs)", slc.rate, sgo.rate, slc.serverCPU, sgo.serverCPU),
			slc.rate/sgo.rate, ">= 2x", slc.rate/sgo.rate >= 2)
	}
	// measured is a target's figures beside its baseline run's.
	measured := func(t, b result) string {
		return fmt.Sprintf("%.0f/s (cpu %.0f µs) beside %s %.0f/s (cpu %.0f µs)", t.rate, t.serverCPU, baselineOf(t.name), b.rate, b.serverCPU)
	}
	// Each target's throughput goal, a share of its baseline's (0: none,
	// reported only).
	for _, g := range []struct {
		name, label string
		least       float64
	}{
		{"getSecuredReferenceToken", "", 0.9}, {"GetAuthToken", "", 0.9}, {"GenerateSessionInfoV2", "", 0.9},
		{"FetchRewardInfo", "", 0.9}, {"GetScratchCardForBank", "", 0.9},
		{"GetReward-new-card", " (process)", 0.25}, {"fetchCouponCode-new-claim", " (process)", 0.25},
		{"GetReward-new-card-disk", "", 0.8}, {"fetchCouponCode-new-claim-disk", "", 0},
		{"listing-10-cards", "", 0.5}, {"microsite-page", "", 0.5},
	} {
		t, ok := r[g.name]
		b := baseOf(g.name)
		if !ok || b.rate <= 0 {
			continue
		}
		goal := ""
		if g.least > 0 {
			goal = fmt.Sprintf(">= %gx %s", g.least, baselineOf(g.name))
		}
		row(g.name+g.label, measured(t, b), t.rate/b.rate, goal, t.rate/b.rate >= g.least)
	}
	// Issue 25's CPU budget: server CPU per request against the
	// baseline's of the same run (lower is better, so the ratio is ours
	// over the baseline's).
	for _, b := range []struct {
		name string
		most float64
	}{
		{"GetReward-new-card", 3}, {"fetchCouponCode-new-claim", 3},
		{"listing-10-cards", 2}, {"getSecuredReferenceToken", 1.15},
	} {
		t, ok := r[b.name]
		base := baseOf(b.name)
		if !ok || base.serverCPU <= 0 {
			continue
		}
		ratio := t.serverCPU / base.serverCPU
		row(b.name+", server CPU", fmt.Sprintf("%.0f vs %.0f µs", t.serverCPU, base.serverCPU), ratio,
			fmt.Sprintf("<= %gx %s's CPU", b.most, baselineOf(b.name)), ratio <= b.most)
	}
	if rssMax > 0 {
		row("RssAnon, mixed load "+mixed.String(), fmt.Sprintf("%.1f MB max, %.1f MB at the end", float64(rssMax)/(1<<20), float64(rssEnd)/(1<<20)),
			float64(rssMax)/(50<<20), "<= 50 MB", rssMax <= 50<<20)
	}
	if startupMean > 0 {
		row("start-up, exec to first health answer", fmt.Sprintf("%.1f ms mean, %.1f ms worst of 5", ms(startupMean), ms(startupWorst)),
			float64(startupMean)/float64(50*time.Millisecond), "<= 50 ms", startupWorst <= 50*time.Millisecond)
	}
	var firsts []string
	for _, b := range []string{"echo", "sign-go", "sign-libcrypto", "durable-write"} {
		if br, ok := r[b]; ok {
			firsts = append(firsts, fmt.Sprintf("%s %.0f/s (cpu %.0f µs)", b, br.rate, br.serverCPU))
		}
	}
	if len(firsts) > 0 {
		fmt.Printf("\nbaselines, first runs: %s\n", strings.Join(firsts, ", "))
	}
}
