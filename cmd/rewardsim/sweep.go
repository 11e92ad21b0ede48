package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim/controlapi"
	"github.com/rewardsim/rewardsim/sim/sweep"
)

// errSweepUsage exits 2: the sweep's own input is wrong, nothing ran.
type errSweepUsage struct{ msg string }

func (e errSweepUsage) Error() string { return e.msg }
func (errSweepUsage) ExitCode() int   { return 2 }

// errSweepFailed exits 1: a row is graded --fail-on or worse.
type errSweepFailed struct{ msg string }

func (e errSweepFailed) Error() string { return e.msg }
func (errSweepFailed) ExitCode() int   { return 1 }

// errSweepInterrupted exits 130, as a shell reports Ctrl-C.
type errSweepInterrupted struct{}

func (errSweepInterrupted) Error() string {
	return "interrupted: the runs were stopped and their channels deleted (and the simulator the sweep started stopped)"
}
func (errSweepInterrupted) ExitCode() int { return 130 }

type sweepFlags struct {
	control, token, url, like, when, out, failOn string
	reports                                      string
	only, kinds                                  []string
	parallel, baselineRuns                       int
	timeout, delay                               time.Duration
}

func newSweepCmd() *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep [flags] -- COMMAND [ARGS...]",
		Short: "Run your own test command once per failure the simulator can show, and grade what your service did",
		Long: `sweep runs COMMAND once without a fault (the baseline), then once per row: each endpoint the
baseline called × each fault kind that endpoint can show × --when, each run on a channel of its
own made like --like, with the row's fault armed there. Each run's environment names it:
REWARDSIM_URL, REWARDSIM_CONTROL_URL, REWARDSIM_CHANNEL, REWARDSIM_CHANNEL_ID, REWARDSIM_LIKE and
REWARDSIM_SWEEP_ROW (the row as JSON). A row is graded not-reached, handled, surfaced, timed-out
or unsafe (docs/sweep.md). Exit 0, 1 when a row is graded --fail-on or worse (or the baseline
fails), 2 when the sweep's own input is wrong.`,
		Example: `  rewardsim sweep --only fetchCouponCode --parallel 4 --out sweep-out -- go test ./...`,
		RunE:    func(cmd *cobra.Command, args []string) error { return runSweep(cmd, args, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.control, "control", "", "a running simulator's control API (default: start one on free ports, stopped at the end)")
	fl.StringVar(&f.token, "control-token", os.Getenv(envControlToken), "the control token of --control [env "+envControlToken+"]")
	fl.StringVar(&f.url, "url", envOr("REWARDSIM_URL", "http://127.0.0.1:8080"), "with --control: the simulator's public hosts (combined listener) [env REWARDSIM_URL]")
	fl.StringVar(&f.like, "like", "DEMOBANK", "the channel each run's channel copies")
	fl.StringSliceVar(&f.only, "only", nil, "limit the endpoints (comma-separated operation names)")
	fl.StringSliceVar(&f.kinds, "kinds", nil, "limit the fault kinds (comma-separated; coupon-error:CODE for one code)")
	fl.StringVar(&f.when, "when", sweep.Both, "the fault fires on the first matching call, on every one, or both rows: first, every or both")
	fl.IntVar(&f.parallel, "parallel", 1, "runs at once, each on channels of its own")
	fl.IntVar(&f.baselineRuns, "baseline-runs", 2, "how often the baseline runs: a finding of any of them is flaky in the baseline and graded in no row")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Minute, "per run; a run past it is graded timed-out")
	fl.DurationVar(&f.delay, "delay", 10*time.Second, "how long the delay and commit-then-delay rows hold the answer (longer than your service waits)")
	fl.StringVar(&f.out, "out", "", "folder for sweep.json, sweep.html, junit.xml and each run's output, journal slice and diagram")
	fl.StringVar(&f.reports, "reports", "", "a glob of the JUnit XML or TAP files the command writes (as target/surefire-reports/*.xml), read after each run; REWARDSIM_SWEEP_REPORTS and TAP on the output are read anyway")
	fl.StringVar(&f.failOn, "fail-on", sweep.Unsafe, "exit 1 when a row is graded this or worse: unsafe or surfaced")
	return cmd
}

// check refuses the sweep's own bad input before anything runs.
func (f sweepFlags) check(cmd *cobra.Command, args []string) ([]string, error) {
	if at := cmd.ArgsLenAtDash(); at < 0 || len(args[at:]) == 0 || at > 0 {
		return nil, errSweepUsage{"no command: give the command that runs your tests after --, as in rewardsim sweep -- go test ./..."}
	}
	if f.parallel < 1 {
		return nil, errSweepUsage{fmt.Sprintf("--parallel %d: give 1 or more runs at once", f.parallel)}
	}
	if f.reports != "" && f.parallel > 1 {
		return nil, errSweepUsage{"--reports with --parallel: runs at once would write over each other's reports; have the command write them to $REWARDSIM_SWEEP_REPORTS, a folder of each run's own"}
	}
	if _, err := filepath.Match(f.reports, ""); err != nil {
		return nil, errSweepUsage{fmt.Sprintf("--reports %q: %v", f.reports, err)}
	}
	if f.baselineRuns < 1 {
		return nil, errSweepUsage{fmt.Sprintf("--baseline-runs %d: give 1 or more", f.baselineRuns)}
	}
	if f.failOn != sweep.Unsafe && f.failOn != sweep.Surfaced {
		return nil, errSweepUsage{fmt.Sprintf("--fail-on %q: give unsafe or surfaced", f.failOn)}
	}
	if f.timeout <= 0 || f.delay <= 0 {
		return nil, errSweepUsage{"--timeout and --delay must be positive"}
	}
	if err := sweep.CheckFilters(f.only, f.kinds, f.when); err != nil {
		return nil, errSweepUsage{err.Error()}
	}
	return args, nil
}

func runSweep(cmd *cobra.Command, args []string, f sweepFlags) error {
	command, err := f.check(cmd, args)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	o := sweep.Options{Like: f.like, Only: f.only, Kinds: f.kinds, When: f.when, Parallel: f.parallel, BaselineRuns: f.baselineRuns, Timeout: f.timeout,
		Delay: f.delay, Out: f.out, Reports: f.reports, FailOn: f.failOn, Command: command, PublicURL: f.url,
		Control: &controlapi.Client{Base: f.control, Token: f.token}, Prefix: fmt.Sprintf("SWEEP-%d", time.Now().UnixNano()%1e9)}
	if f.control == "" {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		srv, err := sweep.StartServer(ctx, exe)
		if err != nil {
			return err
		}
		defer srv.Stop()
		o.PublicURL, o.Control.Base, o.Control.Token = srv.PublicURL, srv.ControlURL, ""
		o.Scratch = srv.Scratch()
	}
	if f.out != "" {
		o.Scratch = f.out // each run's files stay beside its output
	}
	if a, err := o.Control.Channel(ctx, f.like); err != nil {
		return err
	} else if a.Status == http.StatusNotFound {
		return errSweepUsage{fmt.Sprintf("--like %s: the simulator has no channel of that name", f.like)}
	}
	stderr := cmd.ErrOrStderr()
	fmt.Fprintf(stderr, "sweep: baseline run of %s on channels like %s\n", strings.Join(command, " "), f.like)
	var mu sync.Mutex
	o.Progress = func(r sweep.Result) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stderr, "sweep: %s: %s (%.1fs)\n", r.ID, r.Grade, r.Seconds)
	}
	rep, err := sweep.Run(ctx, o)
	if ctx.Err() != nil {
		return errSweepInterrupted{}
	}
	var be *sweep.BaselineError
	if errors.As(err, &be) {
		return errSweepFailed{be.Error()}
	}
	if err != nil {
		return err
	}
	sweep.Terminal(cmd.OutOrStdout(), rep, isTerminal(cmd))
	if err := writeSweep(f.out, rep); err != nil {
		return err
	}
	if f.control != "" {
		// The dashboard shows the last sweep; a simulator without the
		// route (an older one) cannot, which is no reason to fail.
		if _, err := controlapi.Body(o.Control.PutLastSweep(ctx, rep)); err != nil {
			fmt.Fprintln(stderr, "sweep: not reported to the simulator's dashboard:", err)
		}
	}
	if rep.Failed {
		return errSweepFailed{fmt.Sprintf("a row is graded %s or worse", f.failOn)}
	}
	return nil
}

func isTerminal(cmd *cobra.Command) bool {
	out, ok := cmd.OutOrStdout().(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" {
		return false
	}
	st, err := out.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// writeSweep writes sweep.json, sweep.html and junit.xml under dir.
func writeSweep(dir string, rep *sweep.Report) error {
	if dir == "" {
		return nil
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	var page bytes.Buffer
	if err := sweep.HTML(&page, rep); err != nil {
		return err
	}
	junit, err := sweepJUnit(rep)
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{"sweep.json": append(js, '\n'), "sweep.html": page.Bytes(), "junit.xml": junit} {
		if err := writeFile(filepath.Join(dir, name), data); err != nil {
			return err
		}
	}
	return nil
}

// sweepJUnit is one test case per row, failed at --fail-on or worse.
func sweepJUnit(rep *sweep.Report) ([]byte, error) {
	s := junitSuite{Name: "rewardsim sweep", Time: seconds(time.Duration(rep.Seconds * float64(time.Second)))}
	for _, r := range rep.Rows {
		c := junitCase{Name: r.ID, ClassName: "sweep." + r.Endpoint, Time: seconds(time.Duration(r.Seconds * float64(time.Second)))}
		text := fmt.Sprintf("grade %s; exit %d; fault fired %d; then: %s; %s", r.Grade, r.Exit, r.Fired, r.Next, r.Note)
		if sweep.AtLeast(r.Grade, rep.FailOn) {
			c.Failure = &junitProblem{Message: r.Grade + ": " + r.Note, Type: r.Grade, Text: text}
		} else {
			c.SystemOut = text
		}
		s.Cases = append(s.Cases, c)
	}
	return junitXML(s)
}
