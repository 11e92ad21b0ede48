package sweep

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rewardsim/rewardsim/sim/controlapi"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/journal"
)

// Options say what to sweep and where.
type Options struct {
	Control   *controlapi.Client // the simulator's control API
	PublicURL string             // REWARDSIM_URL: the simulator's public hosts
	Like      string             // the channel each run's channel copies
	Only      []string           // endpoints (empty: every one the baseline called)
	Kinds     []string           // matrix columns or kinds (empty: all)
	When      string
	Parallel  int
	// BaselineRuns is how often the baseline runs (at least once): a
	// finding of any of them is not graded in a row.
	BaselineRuns int
	Timeout      time.Duration // per run
	Delay        time.Duration // of the delay and commit-then-delay rows
	Out          string        // folder of the outputs ("" : none written)
	// Reports is a glob of the JUnit XML or TAP files the command writes
	// (--reports), read after each run besides REWARDSIM_SWEEP_REPORTS.
	Reports string
	FailOn  string
	Command []string
	// Scratch is a folder for each run's files (runs/NAME/ under it: the
	// channels the tests named, their reports), removed after the run
	// unless it is Out; "" makes a temporary one per run.
	Scratch string
	// Prefix starts every channel name the sweep makes, so two sweeps on
	// one simulator do not meet.
	Prefix string
	// Progress, if set, is told of each finished run.
	Progress func(Result)
}

// Result is one graded run.
type Result struct {
	Row
	Channel    string    `json:"channel"`
	Grade      string    `json:"grade"`
	Next       string    `json:"next,omitempty"`
	Note       string    `json:"note,omitempty"`
	Exit       int       `json:"exit"`
	Fired      int       `json:"fired"`
	Exchanges  int       `json:"exchanges"`
	Deliveries int       `json:"deliveries"`
	Findings   []Finding `json:"findings"`
	Seconds    float64   `json:"seconds"`
	// Output, Journal and Diagram are paths under --out, when written.
	Output  string `json:"output,omitempty"`
	Journal string `json:"journal,omitempty"`
	Diagram string `json:"diagram,omitempty"`
	// Tests are the run's tests, when it wrote JUnit XML or TAP.
	Tests *Tests `json:"tests,omitempty"`
	// Only are the tests the run was told to run (REWARDSIM_SWEEP_TESTS,
	// {tests}): those whose channels called the faulted endpoint in the
	// baseline; nil when every test ran.
	Only    []string `json:"only,omitempty"`
	output  []byte
	entries []journal.Entry
	verdict verdict
}

// BaselineError is a baseline run that failed: the sweep stops there.
type BaselineError struct {
	Exit   int
	Output []byte
	Reason string
}

func (e *BaselineError) Error() string {
	return fmt.Sprintf("the baseline run (no fault) %s; fix it before sweeping. Its output:\n%s", e.Reason, e.Output)
}

// sweeper runs rows against one simulator.
type sweeper struct {
	o    Options
	mu   sync.Mutex
	made []string // channels made and not yet deleted
	// callers are the tests that called each endpoint in the baseline
	// (an endpoint absent: every test runs in its rows).
	callers map[string][]string
}

// run makes a channel like o.Like, arms the row's fault there (none for
// the baseline), runs the command with its environment, reads what it
// left and cleans up.
func (s *sweeper) run(ctx context.Context, row Row, name string, baseline bool) (Result, evidence, error) {
	ch := s.o.Prefix + "-" + name
	res := Result{Row: row, Channel: ch}
	if err := s.makeChannel(ctx, ch); err != nil {
		return res, evidence{}, err
	}
	defer s.dropChannel(ch)
	r := markerRule(ch)
	if !baseline {
		r = fault.Rule{ID: ch, Endpoint: row.Endpoint, Channel: ch, Action: *row.Action}
		if row.When == First {
			r.Times = 1
		}
	}
	if _, err := controlapi.Body(s.o.Control.ArmFault(ctx, r)); err != nil {
		return res, evidence{}, err
	}
	// The run's own folder: where the libraries name the channels they
	// make after their tests (REWARDSIM_SWEEP_CHANNELS).
	dir, err := s.runFolder(name)
	if err != nil {
		return res, evidence{}, err
	}
	if s.o.Out == "" || s.o.Scratch != s.o.Out {
		defer os.RemoveAll(dir)
	}
	names := filepath.Join(dir, "channels.tsv")
	env, err := s.env(ch, row, baseline)
	if err != nil {
		return res, evidence{}, err
	}
	reports := filepath.Join(dir, "reports")
	if err := os.MkdirAll(reports, 0o755); err != nil {
		return res, evidence{}, err
	}
	if !baseline {
		res.Only = s.callers[row.Endpoint]
	}
	env = append(env, "REWARDSIM_SWEEP_CHANNELS="+names, "REWARDSIM_SWEEP_REPORTS="+reports, "REWARDSIM_SWEEP_TESTS="+strings.Join(res.Only, ","))
	start := time.Now()
	ev := evidence{}
	res.output, ev.exit, ev.timedOut, err = execute(ctx, expandTests(s.o.Command, res.Only), env, s.o.Timeout)
	res.Seconds = time.Since(start).Seconds()
	if err != nil {
		return res, ev, err
	}
	ev.tests = readChannelTests(names)
	if t, ok := readTests(reports, s.o.Reports, start, res.output, s.reportLink(name, reports)); ok {
		res.Tests = &t
	}
	if err := s.collect(ctx, ch, &ev); err != nil {
		return res, ev, err
	}
	res.Exit, res.Fired, res.entries, res.Exchanges = ev.exit, ev.fired, ev.entries, len(ev.entries)
	return res, ev, nil
}

// runFolder makes the folder of run name's files: runs/NAME under
// Scratch, or a temporary one.
func (s *sweeper) runFolder(name string) (string, error) {
	if s.o.Scratch == "" {
		return os.MkdirTemp("", "rewardsim-sweep-run-")
	}
	dir := filepath.Join(s.o.Scratch, "runs", name)
	return dir, os.MkdirAll(dir, 0o755)
}

func (s *sweeper) env(ch string, row Row, baseline bool) ([]string, error) {
	rowJSON := []byte("null")
	if !baseline {
		var err error
		if rowJSON, err = json.Marshal(row); err != nil {
			return nil, err
		}
	}
	env := os.Environ()
	if s.o.Control.Token != "" {
		env = append(env, "REWARDSIM_CONTROL_TOKEN="+s.o.Control.Token)
	}
	return append(env,
		"REWARDSIM_URL="+s.o.PublicURL,
		"REWARDSIM_CONTROL_URL="+s.o.Control.Base,
		"REWARDSIM_CHANNEL="+ch,
		"REWARDSIM_CHANNEL_ID="+ch,
		"REWARDSIM_LIKE="+ch,
		"REWARDSIM_SWEEP_LIKE="+s.o.Like,
		"REWARDSIM_SWEEP_ROW="+string(rowJSON),
	), nil
}

func (s *sweeper) makeChannel(ctx context.Context, ch string) error {
	if _, err := controlapi.Body(s.o.Control.RegisterChannel(ctx, map[string]string{"name": ch, "like": s.o.Like})); err != nil {
		return err
	}
	s.mu.Lock()
	s.made = append(s.made, ch)
	s.mu.Unlock()
	return nil
}

// markerRule is the baseline's rule: it never fires (its nth call is
// never reached), but a channel made like the baseline's copies it, which
// names that channel to collect.
func markerRule(ch string) fault.Rule {
	return fault.Rule{ID: ch, Endpoint: "*", Channel: ch, Nth: math.MaxInt32, Action: fault.Action{Kind: fault.InternalError}}
}

// dropChannel deletes the channel, its fault and its journal entries,
// and the channels made like it during the run (REWARDSIM_LIKE: found by
// their copies of its fault). It runs on a context of its own: it must
// also run when the sweep is interrupted.
func (s *sweeper) dropChannel(ch string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := s.o.Control
	rules, _ := s.rules(ctx, ch)
	channels := []string{ch}
	for _, r := range rules {
		_, _ = c.DisarmFault(ctx, r.ID)
		if !slices.Contains(channels, r.Channel) {
			channels = append(channels, r.Channel)
		}
	}
	for _, x := range slices.Backward(channels) {
		_, _ = c.ClearJournal(ctx, x)
		_, _ = c.RemoveChannel(ctx, x)
	}
	s.mu.Lock()
	s.made = slices.DeleteFunc(s.made, func(x string) bool { return x == ch })
	s.mu.Unlock()
}

// rules are the run's fault rule (ID ch) and its copies on channels made
// like ch (ID ch~copy, controlplane's copyRuntimeFaults).
func (s *sweeper) rules(ctx context.Context, ch string) ([]fault.Status, error) {
	var list controlapi.FaultList
	if err := controlapi.Decoded(&list)(s.o.Control.Faults(ctx, false)); err != nil {
		return nil, err
	}
	var out []fault.Status
	for _, r := range list.Rules {
		if r.ID == ch || strings.HasPrefix(r.ID, ch+"~") {
			out = append(out, r)
		}
	}
	return out, nil
}

// collect reads what the run left: how often its fault fired (copies
// included) and the journal slices of its channel and of the channels
// made like it, in journal order.
func (s *sweeper) collect(ctx context.Context, ch string, ev *evidence) error {
	rules, err := s.rules(ctx, ch)
	if err != nil {
		return err
	}
	channels := []string{ch}
	for _, r := range rules {
		ev.fired += r.Fired
		if !slices.Contains(channels, r.Channel) {
			channels = append(channels, r.Channel)
		}
	}
	for _, x := range channels {
		es, err := s.journal(ctx, x)
		if err != nil {
			return err
		}
		ev.entries = append(ev.entries, es...)
	}
	slices.SortStableFunc(ev.entries, func(a, b journal.Entry) int { return cmp.Compare(a.Seq, b.Seq) })
	return nil
}

// journal reads the channel's whole journal slice, a page at a time.
func (s *sweeper) journal(ctx context.Context, ch string) ([]journal.Entry, error) {
	var all []journal.Entry
	after := uint64(0)
	for {
		q := url.Values{"channel": {ch}, "limit": {"1000"}, "after": {strconv.FormatUint(after, 10)}}
		raw, err := controlapi.Body(s.o.Control.Journal(ctx, q))
		if err != nil {
			return nil, err
		}
		var page struct {
			Entries []journal.Entry `json:"entries"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, fmt.Errorf("journal of %s: %w", ch, err)
		}
		all = append(all, page.Entries...)
		if len(page.Entries) < 1000 {
			return all, nil
		}
		after = page.Entries[len(page.Entries)-1].Seq
	}
}

// execute runs the command in a process group of its own, killed whole
// at the timeout, when ctx ends or when the sweep dies; the output is
// stdout and stderr interleaved.
func execute(ctx context.Context, command, env []string, timeout time.Duration) (out []byte, exit int, timedOut bool, err error) {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Env = env
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	runGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, 0, false, fmt.Errorf("cannot run %s: %w", command[0], err)
	}
	defer watchGroup(cmd)()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-rctx.Done():
		killGroup(cmd)
		err = <-done
	}
	if ctx.Err() != nil {
		return buf.Bytes(), -1, false, ctx.Err()
	}
	if rctx.Err() != nil {
		return buf.Bytes(), -1, true, nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return buf.Bytes(), ee.ExitCode(), false, nil
	}
	return buf.Bytes(), 0, false, err
}

// called lists the endpoints of the baseline's journal slice.
func called(es []journal.Entry) []string {
	var out []string
	for _, e := range es {
		if e.Endpoint != "" && !slices.Contains(out, e.Endpoint) {
			out = append(out, e.Endpoint)
		}
	}
	return out
}

// reportLink names a report file as the result links it: its path under
// --out (a file of --reports is copied into the run's reports folder
// there; TAP read from the output is output.txt), or "" without --out.
func (s *sweeper) reportLink(name, reports string) func(string) string {
	return func(p string) string {
		if s.o.Out == "" {
			return ""
		}
		run := filepath.Join("runs", name)
		if p == "" {
			return filepath.ToSlash(filepath.Join(run, "output.txt"))
		}
		if rel, err := filepath.Rel(s.o.Out, p); err == nil && s.o.Scratch == s.o.Out && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
		dst := filepath.Join(reports, filepath.Base(p))
		if raw, err := os.ReadFile(p); err != nil || os.WriteFile(dst, raw, 0o644) != nil {
			return ""
		}
		return filepath.ToSlash(filepath.Join(run, "reports", filepath.Base(p)))
	}
}

// testsArg is the command's placeholder of the tests to run: {tests}, or
// {tests|A B} with the tests of a run of them all.
var testsArg = regexp.MustCompile(`^\{tests(?:\|(.*))?\}$`)

// expandTests replaces the {tests} argument of command with the tests to
// run, one argument each; when every test runs (only is nil), with the
// placeholder's own list, else nothing.
func expandTests(command, only []string) []string {
	var out []string
	for _, a := range command {
		m := testsArg.FindStringSubmatch(a)
		switch {
		case m == nil:
			out = append(out, a)
		case only != nil:
			out = append(out, only...)
		default:
			out = append(out, strings.Fields(m[1])...)
		}
	}
	return out
}

// callers maps each endpoint the baseline called to the tests whose
// channels called it (REWARDSIM_SWEEP_CHANNELS), sorted. An endpoint
// called on a channel no test named is left out (its rows run every
// test), and so is every one when a baseline run named no channel.
func callers(runs []evidence) map[string][]string {
	out := map[string][]string{}
	unnamed := map[string]bool{}
	for _, ev := range runs {
		if len(ev.tests) == 0 {
			return nil
		}
		for _, e := range ev.entries {
			if e.Kind != journal.KindExchange || e.Endpoint == "" {
				continue
			}
			t := ev.tests[e.Channel]
			switch {
			case t == "":
				unnamed[e.Endpoint] = true
			case !slices.Contains(out[e.Endpoint], t):
				out[e.Endpoint] = append(out[e.Endpoint], t)
			}
		}
	}
	for ep := range out {
		if unnamed[ep] {
			delete(out, ep)
		} else {
			slices.Sort(out[ep])
		}
	}
	return out
}

// readChannelTests reads REWARDSIM_SWEEP_CHANNELS, where the libraries
// append "CHANNEL<TAB>TEST" for each channel they make for a test: which
// test each channel of the run belongs to (none when no library wrote).
func readChannelTests(path string) map[string]string {
	out := map[string]string{}
	raw, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if ch, test, ok := strings.Cut(strings.TrimSpace(line), "\t"); ok && ch != "" && test != "" {
			out[ch] = test
		}
	}
	return out
}

// writeRun keeps a run's output, journal slice and the sequence diagram
// of its faulted exchange under dir/runs/<name>.
func writeRun(dir string, name string, r *Result) error {
	if dir == "" {
		return nil
	}
	rel := filepath.Join("runs", name)
	if err := os.MkdirAll(filepath.Join(dir, rel), 0o755); err != nil {
		return err
	}
	r.Output, r.Journal, r.Diagram = filepath.ToSlash(filepath.Join(rel, "output.txt")), filepath.ToSlash(filepath.Join(rel, "journal.json")), filepath.ToSlash(filepath.Join(rel, "sequence.svg"))
	j, err := json.MarshalIndent(map[string]any{"channel": r.Channel, "entries": r.entries}, "", "  ")
	if err != nil {
		return err
	}
	var svg bytes.Buffer
	if err := faultedSequence(&svg, r); err != nil {
		return err
	}
	for name, data := range map[string][]byte{r.Output: r.output, r.Journal: j, r.Diagram: svg.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
