package main

// A/B between two rewardsim binaries (-against): every rewardsim figure of
// -bin measured again against an older build in the same run, the two
// alternating in stretches, each on its own data folder prepared the same
// way.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// abTolerance is how far below the old binary a new figure may fall
// (issues 53 and 54: "within 3% of today's").
const abTolerance = 0.03

// side is one rewardsim binary under load and the processes serving its
// targets.
type side struct {
	path, label string
	// accepts is the serve flags the binary's help lists (nil: every flag
	// the harness passes, as for -bin); left the harness's flags it lacks.
	accepts map[string]bool
	left    []string
	srv     *proc // --durability process, which the mixed load runs on
	procs   []*proc
	arms    []arm // its targets in the order they run
}

// arm is a target and the process serving it.
type arm struct {
	t target
	p *proc
}

// sides is -bin, and -against when set, whose serve flags are probed.
func sides() ([]*side, error) {
	s := []*side{{path: *bin}}
	if *against == "" {
		return s, nil
	}
	flags, err := serveFlags(*against)
	if err != nil {
		return nil, err
	}
	fmt.Printf("# A/B: every rewardsim target runs against %s (%s) too, alternating with %s (%s)\n", *against, version(*against), *bin, version(*bin))
	return append(s, &side{path: *against, label: "against", accepts: flags}), nil
}

// version is the first line of bin's `version` (what it was built from).
func version(bin string) string {
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		return "version unknown"
	}
	v, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return v
}

// flagLine is a flag in pflag's help: "  -h, --help" or "      --data string ...".
var flagLine = regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z0-9][a-z0-9-]*)`)

// serveFlags are the flags bin's `serve --help` lists: an older build may
// lack some the harness passes today.
func serveFlags(bin string) (map[string]bool, error) {
	out, err := exec.Command(bin, "serve", "--help").Output()
	if err != nil {
		return nil, fmt.Errorf("%s serve --help: %w", bin, err)
	}
	flags := map[string]bool{}
	for _, m := range flagLine.FindAllStringSubmatch(string(out), -1) {
		flags[m[1]] = true
	}
	if !flags["data"] {
		return nil, fmt.Errorf("%s serve --help lists no --data flag: not a rewardsim binary?", bin)
	}
	return flags, nil
}

// serve is the command line of `serve args...` for s's binary, without
// the flags (each "--name value") it lacks, each said once.
func (s *side) serve(args ...string) []string {
	argv := []string{s.path, "serve"}
	for i := 0; i < len(args); i++ {
		name, ok := strings.CutPrefix(args[i], "--")
		if !ok || s.accepts == nil || s.accepts[name] {
			argv = append(argv, args[i])
			continue
		}
		if !slices.Contains(s.left, args[i]) {
			s.left = append(s.left, args[i])
			fmt.Printf("# %s: its serve has no %s: left out for it (%s keeps it)\n", s.path, args[i], *bin)
		}
		i++ // and its value
	}
	return argv
}

// start serves s's targets: on --durability process when a chosen target
// runs on it, on disk likewise, each in its own folder under data.
func (s *side) start(data string) error {
	for _, d := range []string{"process", "disk"} {
		if !needs(d) {
			continue
		}
		p, c, err := serveTarget(s, filepath.Join(data, d), d)
		if err != nil {
			return err
		}
		s.procs = append(s.procs, p)
		suffix := ""
		if d == "disk" {
			suffix = "-disk"
		} else {
			s.srv = p
		}
		targets, err := prepare(c, func(name string) bool { return chosen(name + suffix) })
		if err != nil {
			return err
		}
		for _, t := range targets {
			if d == "disk" && !strings.HasPrefix(t.name, "GetReward-") && !strings.HasPrefix(t.name, "fetchCouponCode-") {
				continue
			}
			t.name += suffix
			s.arms = append(s.arms, arm{t, p})
		}
	}
	return nil
}

// stop ends s's processes but srv (all of them: srv too).
func (s *side) stop(all bool) {
	for _, p := range s.procs {
		if all || p != s.srv {
			p.stop()
		}
	}
}

// needs reports whether a chosen target runs on a --durability d server
// (every rewardsim target has a baseline; start-up and the baselines do
// not).
func needs(d string) bool {
	if *only == "" {
		return true
	}
	for _, name := range strings.Split(*only, ",") {
		if baselineOf(name) != "" && strings.HasSuffix(name, "-disk") == (d == "disk") {
			return true
		}
	}
	return false
}

// abba is the order the arms run in at stretch i: as given, then
// reversed, so that neither binary always runs right after the other.
func abba(arms, i int) []int {
	order := make([]int, arms)
	for j := range order {
		order[j] = j
	}
	if i%2 == 1 {
		slices.Reverse(order)
	}
	return order
}

// fig is one stretch's figures.
type fig struct {
	rate float64 // answered requests per second
	cpu  float64 // server CPU µs per request
}

func (s sample) fig() fig {
	if s.n == 0 {
		return fig{}
	}
	return fig{float64(s.n) / s.el.Seconds(), float64(s.cpu.Microseconds()) / float64(s.n+s.errs)}
}

// abFigure is a target's A/B: the old binary's figures and each stretch's,
// new then old.
type abFigure struct {
	old  result
	runs [][]fig
}

// printAB prints the old binary's line under its target's, with each
// stretch's figures.
func printAB(res result, ab abFigure) {
	o := ab.old
	fmt.Printf("  %-24s %9.0f req/s  %7.0f server-cpu-µs/req  p50 %6.2f ms  p99 %6.2f ms  (n=%d)  new/old %.3fx req/s, %.3fx cpu\n",
		"against", o.rate, o.serverCPU, ms(o.p50), ms(o.p99), o.n, ratio(res.rate, o.rate), ratio(res.serverCPU, o.serverCPU))
	if o.errs > 0 {
		fmt.Printf("  %-24s %d errors, first: %s\n", "", o.errs, o.firstErr)
	}
	var each []string
	for _, f := range ab.runs {
		each = append(each, fmt.Sprintf("%.0f/%.0f", f[0].rate, f[1].rate))
	}
	fmt.Printf("  %-24s each stretch, new/old req/s: %s\n", "", strings.Join(each, " "))
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// copyStartData copies -startup-data for the old binary, before either
// opens it: each binary starts on its own copy of the same file.
func copyStartData() (string, error) {
	dir, err := os.MkdirTemp("", "rewardsim-startup-against-")
	if err != nil {
		return "", err
	}
	// CopyFS wants a folder that does not exist yet.
	dst := filepath.Join(dir, "data")
	if err := os.CopyFS(dst, os.DirFS(*startData)); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dst, nil
}

// reportAB prints the A/B table: each figure of -bin over -against's, with
// each stretch's ratio, held to abTolerance.
func reportAB(ss []*side, r *runner, st []startup, mix []rssFigure) {
	if len(ss) < 2 {
		return
	}
	left := "none"
	if len(ss[1].left) > 0 {
		left = strings.Join(ss[1].left, " ")
	}
	fmt.Printf("\nA/B: %s (new) over %s (old), alternating in stretches, new first in one and old first in the next; flags left out for the old: %s\n", ss[0].path, ss[1].path, left)
	fmt.Println("| figure | new | old | new/old | each stretch's new/old | new/old server CPU | within 3% of old |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, name := range r.abOrder {
		n, ab := r.results[name], r.ab[name]
		var each []string
		for _, f := range ab.runs {
			each = append(each, strconv.FormatFloat(ratio(f[0].rate, f[1].rate), 'f', 2, 64))
		}
		abRow(name+", req/s", fmt.Sprintf("%.0f/s (cpu %.0f µs)", n.rate, n.serverCPU), fmt.Sprintf("%.0f/s (cpu %.0f µs)", ab.old.rate, ab.old.serverCPU),
			ratio(n.rate, ab.old.rate), strings.Join(each, " "), fmt.Sprintf("%.3fx", ratio(n.serverCPU, ab.old.serverCPU)), true)
	}
	if len(st[0].runs) > 0 {
		startupAB("start-up", st[0].runs, st[1].runs)
	}
	if len(st[0].largeRuns) > 0 && len(st[1].largeRuns) > 0 {
		startupAB(fmt.Sprintf("start-up, a %.2f GB state file", float64(st[0].largeBytes)/(1<<30)), st[0].largeRuns, st[1].largeRuns)
	}
	if len(st[0].largeRuns) > 0 && len(st[1].largeRuns) == 0 {
		fmt.Println("| start-up, the large state file | measured | not measured: the old binary refused the file (above) | | | | |")
	}
	if mix[0].max > 0 && mix[1].max > 0 {
		abRow("RssAnon max, mixed load "+mixed.String(), fmt.Sprintf("%.1f MB", float64(mix[0].max)/(1<<20)), fmt.Sprintf("%.1f MB", float64(mix[1].max)/(1<<20)),
			ratio(float64(mix[0].max), float64(mix[1].max)), "", "", false)
	}
}

// startupAB is start-up's row: the mean time of each binary's runs.
func startupAB(name string, n, o []time.Duration) {
	var each []string
	for i := range min(len(n), len(o)) {
		each = append(each, strconv.FormatFloat(ratio(float64(n[i]), float64(o[i])), 'f', 2, 64))
	}
	nm, _ := meanWorst(n)
	om, _ := meanWorst(o)
	abRow(name+", ms", fmt.Sprintf("%.1f ms mean", ms(nm)), fmt.Sprintf("%.1f ms mean", ms(om)), ratio(float64(nm), float64(om)), strings.Join(each, " "), "", false)
}

// abRow prints one line of the A/B table: more is better for a rate
// (held to at least 1 - abTolerance), less for a time or memory (at most
// 1 + abTolerance).
func abRow(name, n, o string, r float64, each, cpu string, more bool) {
	met := r <= 1+abTolerance
	if more {
		met = r >= 1-abTolerance
	}
	verdict := "**no**"
	if met {
		verdict = "yes"
	}
	fmt.Printf("| %s | %s | %s | %.3fx | %s | %s | %s |\n", name, n, o, r, each, cpu, verdict)
}
