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
//
// With -against (make load AGAINST=<rev>), every rewardsim figure is
// also measured on another build in the same run (ab.go): its own
// servers on fresh folders, prepared alike, each target's stretches
// running both builds in turn, and a table of new/old ratios.
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

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
	startData = flag.String("startup-data", "", "a data folder holding a large state file: start-up is measured on it too (make load makes a 1 GB one)")
	stretches = flag.Int("stretches", 5, "with -adjacent, how many stretches of -duration/stretches each the target and its baseline alternate in")
	against   = flag.String("against", "", "an older rewardsim binary every rewardsim target, start-up and the mixed load also run against, alternating with -bin in -stretches stretches, each on its own data folder: prints each figure's new/old ratio")
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

func run() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	fmt.Printf("# rewardsim make load: %s, %d CPUs (%s), %s, -conns %d -duration %s\n",
		cpuModel(), runtime.NumCPU(), runtime.GOARCH, time.Now().UTC().Format(time.RFC3339), *conns, *duration)
	ss, err := sides()
	if err != nil {
		return err
	}

	// A run of chosen targets skips the five start-ups unless it names them.
	st, err := measureStartups(ss)
	if err != nil {
		return err
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
	for i, s := range ss {
		defer s.stop(true)
		if err := s.start(filepath.Join(data, strconv.Itoa(i))); err != nil {
			return err
		}
	}
	signer, err := newClient("") // the baselines' requests need its key only
	if err != nil {
		return err
	}
	r := newRunner(baseGo)
	for _, b := range baselineTargets(baseGo, baseLC, sealed(signer, map[string]string{"bName": "DEMOBANK"})) {
		r.baselines[b.t.name], r.baseProcs[b.t.name] = b.t, b.p
		r.runOne([]arm{{b.t, b.p}})
	}
	for i, a := range ss[0].arms {
		arms := []arm{a}
		for _, s := range ss[1:] { // prepared alike: the same targets in the same order
			arms = append(arms, s.arms[i])
		}
		r.runOne(arms)
	}
	for _, s := range ss {
		s.stop(false) // the disk servers, before the mixed load, which runs on srv alone
	}

	mix := mixedLoad(ss)
	report(r.results, r.beside, st[0], mix[0].max, mix[0].end)
	spread(r.baseRuns)
	reportAB(ss, r, st, mix)
	return nil
}

// measureStartups times start-up on a fresh folder and, with
// -startup-data, on that folder's large state file: each binary's runs
// alternating, the old one on its own copy of the file.
func measureStartups(ss []*side) ([]startup, error) {
	st := make([]startup, len(ss))
	if !chosen("start-up") {
		return st, nil
	}
	runs, err := measureStartup(ss, make([]string, len(ss)))
	if err != nil || *startData == "" {
		for i := range runs {
			st[i].runs = runs[i]
		}
		return st, err
	}
	keep := []string{*startData}
	if len(ss) > 1 {
		cp, err := copyStartData()
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(filepath.Dir(cp))
		keep = append(keep, cp)
	}
	large, err := measureStartup(ss, keep)
	if err != nil && len(ss) > 1 {
		// The file is in this build's store format, which an older build
		// may refuse: then this build's figure alone.
		fmt.Printf("# start-up on %s: %v; measured for %s alone\n", *startData, err, *bin)
		large, err = measureStartup(ss[:1], keep[:1])
		large = append(large, nil)
	}
	if err != nil {
		return nil, err
	}
	for i := range ss {
		st[i].runs, st[i].largeRuns = runs[i], large[i]
		if fi, err := os.Stat(filepath.Join(keep[i], "rewardsim.db")); err == nil {
			st[i].largeBytes = fi.Size()
		}
	}
	return st, nil
}

// serveTarget starts a rewardsim process of s with durability on the data
// folder dir, and a publisher client of it.
func serveTarget(s *side, dir, durability string) (*proc, *publisher.Client, error) {
	// --debug-pprof also serves /__sim/debug/store, the write counters
	// behind each target's pages per exchange.
	args := s.serve("--data", dir, "--durability", durability, "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0", "--log-level", "error",
		"--debug-pprof", "true")
	p, err := start(args, 2)
	if err != nil {
		return nil, nil, err
	}
	// serve's auto back end is crypto/rsa until its listeners are bound
	// and libcrypto once that has loaded: the line names the settled one.
	var health struct{ Crypto, Durability string }
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if err := getJSON(p.urls["control"]+"/__sim/health", &health); err != nil {
			p.stop()
			return nil, nil, err
		}
		if health.Crypto != "go" || time.Now().After(deadline) {
			break
		}
	}
	label := ""
	if s.label != "" {
		label = s.label + ": "
	}
	fmt.Printf("# %srewardsim serve pid %d, crypto back end %s, journal on, --durability %s\n", label, p.cmd.Process.Pid, health.Crypto, health.Durability)
	c, err := newClient(p.urls["all"])
	if err != nil {
		p.stop()
		return nil, nil, err
	}
	return p, c, nil
}

// baselineTarget is a baseline and the process serving it.
type baselineTarget struct {
	t target
	p *proc
}

// baselineTargets are the four baselines: echo, sign-go, sign-libcrypto
// (signBody, a sealed request) and durable-write.
func baselineTargets(baseGo, baseLC *proc, signBody []byte) []baselineTarget {
	tag := strconv.FormatInt(time.Now().UnixNano(), 36)
	var written atomic.Int64 // durable-write's keys, unique across its runs
	return []baselineTarget{
		{target{name: "echo", next: func(int) *http.Request { return get(baseGo.urls["baseline"]+"/echo", "") }, want: `"pad"`}, baseGo},
		{target{name: "sign-go", next: func(int) *http.Request { return post(baseGo.urls["baseline"]+"/sign", "", signBody, nil) }, want: `"SIGN"`}, baseGo},
		{target{name: "sign-libcrypto", next: func(int) *http.Request { return post(baseLC.urls["baseline"]+"/sign", "", signBody, nil) }, want: `"SIGN"`}, baseLC},
		{target{name: "durable-write", want: `"pad"`, next: func(int) *http.Request {
			i := written.Add(1)
			return post(baseGo.urls["baseline"]+"/durable", "", fmt.Appendf(nil, `{"channelName":"DEMOBANK","virtualId":"DW-%s-%d","triggerEventType":"UPI","extTransactionId":"DWT-%s-%d","amount":100.00,"dateandtime":"15012026100000"}`, tag, i, tag, i), nil)
		}}, baseGo},
	}
}

// runner runs the targets and keeps their figures.
type runner struct {
	baseGo    *proc
	results   map[string]result
	beside    map[string]result   // target -> its baseline's stretches, alternating with it
	baseRuns  map[string][]result // baseline -> all its runs
	baselines map[string]target   // baseline name -> how to run it
	baseProcs map[string]*proc    // baseline name -> its process
	ab        map[string]abFigure // target -> the -against binary's figures
	abOrder   []string            // the targets of ab in the order they ran
}

func newRunner(baseGo *proc) *runner {
	return &runner{baseGo: baseGo, results: map[string]result{}, beside: map[string]result{},
		baseRuns: map[string][]result{}, baselines: map[string]target{}, baseProcs: map[string]*proc{}, ab: map[string]abFigure{}}
}

// freshCeiling starts each run of the durable-write ceiling on an empty
// file, as its first did: a yardstick that stays the same length.
func (r *runner) freshCeiling(name string) {
	if name != "durable-write" {
		return
	}
	res, err := client.Post(r.baseGo.urls["baseline"]+"/durable/fresh", "", nil)
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

// runOne measures arms[0] (alternating with its baseline with -adjacent,
// and with arms[1], the same target on -against, when given) and prints
// its line.
func (r *runner) runOne(arms []arm) {
	t, p := arms[0].t, arms[0].p
	if !chosen(t.name) {
		return
	}
	var res result
	if b := baselineOf(t.name); *adjacent && b != "" || len(arms) > 1 {
		res = r.runAdjacent(arms, b)
	} else {
		r.freshCeiling(t.name)
		prof := profile(t.name, p, *duration)
		res = measure(t, p, *duration)
		if err := prof(); err != nil {
			fmt.Fprintf(os.Stderr, "load: profile of %s: %v\n", t.name, err)
		}
	}
	r.results[t.name] = res
	if _, ok := r.baselines[t.name]; ok {
		r.baseRuns[t.name] = append(r.baseRuns[t.name], res)
	}
	errNote := ""
	if res.errs > 0 {
		errNote = fmt.Sprintf("  %d errors, first: %s", res.errs, res.firstErr)
	}
	fmt.Printf("%-26s %9.0f req/s  %7.0f server-cpu-µs/req  p50 %6.2f ms  p99 %6.2f ms  (n=%d)%s\n",
		t.name, res.rate, res.serverCPU, ms(res.p50), ms(res.p99), res.n, errNote)
	if w := res.perExchange(); w != "" {
		fmt.Printf("  %-24s written per exchange: %s\n", "", w)
	}
	if ab, ok := r.ab[t.name]; ok {
		printAB(res, ab)
	}
}

// runAdjacent measures arms[0] in stretches alternating with its
// baseline b (with -adjacent) and keeps b's stretches as the figure it is
// held to. With -against, arms[1] runs in each stretch too, after
// arms[0] in one stretch and before it in the next, and its stretches
// are kept as the A/B's old figure.
func (r *runner) runAdjacent(arms []arm, b string) result {
	name := arms[0].t.name
	withBase := *adjacent && b != ""
	if withBase {
		r.freshCeiling(b)
	}
	loads := len(arms)
	if withBase {
		loads++
	}
	prof := profile(name, arms[0].p, time.Duration(loads)**duration)
	step := *duration / time.Duration(max(1, *stretches))
	var bs sample
	ts := make([]sample, len(arms))
	var runs [][]fig
	for i := range max(1, *stretches) {
		var bOne sample
		if withBase {
			bOne = stretch(r.baselines[b], r.baseProcs[b], step, bs.next)
		}
		one := make([]sample, len(arms))
		for _, j := range abba(len(arms), i) {
			one[j] = stretch(arms[j].t, arms[j].p, step, ts[j].next)
		}
		if slices.ContainsFunc(one, func(s sample) bool { return s.n+s.errs == 0 }) { // a bounded target used up
			break
		}
		bs.add(bOne)
		figs := make([]fig, len(arms))
		for j := range one {
			ts[j].add(one[j])
			figs[j] = one[j].fig()
		}
		runs = append(runs, figs)
	}
	if err := prof(); err != nil {
		fmt.Fprintf(os.Stderr, "load: profile of %s: %v\n", name, err)
	}
	if withBase {
		br := bs.result(b)
		r.beside[name] = br
		r.baseRuns[b] = append(r.baseRuns[b], br)
		fmt.Printf("  %-24s %9.0f req/s  %7.0f server-cpu-µs/req  (the baseline of %s, alternating with it)\n", b, br.rate, br.serverCPU, name)
	}
	if len(arms) > 1 {
		r.ab[name] = abFigure{old: ts[1].result(name), runs: runs}
		r.abOrder = append(r.abOrder, name)
	}
	return ts[0].result(name)
}
