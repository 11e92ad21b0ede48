package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/rewardsim/rewardsim/sim/calibrate"
	"github.com/rewardsim/rewardsim/sim/controlapi"
	"github.com/rewardsim/rewardsim/sim/recordings"
)

func newReplayCmd() *cobra.Command {
	var (
		ctl                                         controlClient
		target, keyPath, scenarioPath, runID, junit string
		secrets, masks                              []string
		shared, verbose, junitSteps                 bool
		parallel                                    int
	)
	cmd := &cobra.Command{
		Use:   "replay FILE|FOLDER...",
		Short: "Re-send recordings to a target and print every difference (exit 1 on any)",
		Long: `Replay re-sends each recording (SIM-4; the *.json files named, and those in the
folders named) to --target, feeding captured tokens and ids into later
requests and re-signing envelopes whose payload changed, and compares every
answer with the recorded one. Fields the answer schemas mark as times, ids,
tokens, signatures or URLs are masked; extend the masks with --mask.

By default each recording replays into channels of its own on a rewardsim
target: through --control it loads a copy of the scenario (--scenario, default
the embedded one) with every channel renamed, activates it for the new names
and resets their state, so recordings replay in parallel against one instance
and twice in a row. Against a UAT (no control API) pass --shared.

It prints a line per recording (per step with -v), notes a step that waits long
(an injected delay), ends with a summary table and can write JUnit XML.`,
		Example: "  rewardsim replay fixtures/recordings/ --target http://127.0.0.1:8080 --control http://127.0.0.1:8090\n" +
			"  rewardsim replay checkout.json --shared --target https://uat.example --junit replay.xml",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := recordings.ReplayOptions{Target: target, Control: ctl.Base, ControlToken: ctl.Token, Shared: shared, RunID: runID, Secrets: secrets, Masks: map[string]string{}, CompareReadings: calibrate.CompareReadings}
			if err := readReplayInputs(&o, keyPath, scenarioPath, masks); err != nil {
				return err
			}
			files, err := recordingFiles(args)
			if err != nil {
				return err
			}
			if parallel < 1 {
				parallel = 1
			}
			rows := replayAll(cmd, files, o, parallel, verbose, junitSteps)
			printSummary(cmd.OutOrStdout(), rows)
			if junit != "" {
				if err := writeReplayJUnit(junit, rows, junitSteps); err != nil {
					return err
				}
			}
			failed := 0
			for _, r := range rows {
				if !r.ok() {
					failed++
				}
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d recordings failed", failed, len(rows))
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&target, "target", envOr("REWARDSIM_TARGET", "http://127.0.0.1:8080"), "base URL of the service, or three: rewards,bank,hotdeals [env REWARDSIM_TARGET]")
	addControlFlags(cmd, &ctl)
	fl.BoolVar(&shared, "shared", false, "replay into the recorded channels as they are (a UAT; no control API): what the target holds shows")
	fl.StringVar(&scenarioPath, "scenario", "", "the scenario file the recordings were made against, copied per recording (default: the embedded default scenario)")
	fl.StringVar(&runID, "run-id", "", "tells apart concurrent replays of the same recordings on one instance (a CI job id, say)")
	fl.IntVar(&parallel, "parallel", 1, "replay this many recordings at once")
	fl.BoolVarP(&verbose, "verbose", "v", false, "print every step")
	fl.StringVar(&junit, "junit", "", "also write JUnit XML to this file: a test case per recording, the difference as the failure message")
	fl.BoolVar(&junitSteps, "junit-steps", false, "with --junit, a test case per step (classname replay.<file>), not per recording")
	fl.StringVar(&keyPath, "key", "", "publisher private key, PEM, to re-sign envelopes (default: the embedded test-only DEMOBANK key)")
	fl.StringArrayVar(&secrets, "secret", nil, "a credential the recording holds as a fingerprint, such as APPKEY:SECKEY (repeatable; default: the default scenario's DEMOBANK keys)")
	fl.StringArrayVar(&masks, "mask", nil, "FIELD=value|digits|url|ignore|none: extend or override the masks (repeatable)")
	return cmd
}

// readReplayInputs reads --key's and --scenario's files into o and
// adds the --mask FIELD=KIND pairs to its masks.
func readReplayInputs(o *recordings.ReplayOptions, keyPath, scenarioPath string, masks []string) error {
	var err error
	if keyPath != "" {
		if o.PublisherKeyPEM, err = os.ReadFile(keyPath); err != nil {
			return err
		}
	}
	if scenarioPath != "" {
		if o.Scenario, err = os.ReadFile(scenarioPath); err != nil {
			return err
		}
		o.ScenarioBase = siblingScenario(scenarioPath)
	}
	for _, m := range masks {
		k, v, ok := strings.Cut(m, "=")
		if !ok {
			return fmt.Errorf("--mask %q: want FIELD=KIND", m)
		}
		o.Masks[k] = v
	}
	return nil
}

// recordingFiles expands folders to the *.json files in them, sorted.
func recordingFiles(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, a)
			continue
		}
		m, err := filepath.Glob(filepath.Join(a, "*.json"))
		if err != nil {
			return nil, err
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%s: no *.json recordings in this folder", a)
		}
		sort.Strings(m)
		out = append(out, m...)
	}
	return out, nil
}

// replayRow is one recording's outcome.
type replayRow struct {
	file, name string
	res        *recordings.ReplayResult
	err        error
	elapsed    time.Duration
	// steps and before are kept for --junit-steps.
	steps  []recordings.ReplayStep
	before []string
}

func (r replayRow) ok() bool { return r.err == nil && r.res.OK() }

// replayAll replays files, parallel at once, printing progress as each
// step and recording ends; rows come back in file order.
func replayAll(cmd *cobra.Command, files []string, o recordings.ReplayOptions, parallel int, verbose, keepSteps bool) []replayRow {
	w := cmd.OutOrStdout()
	var mu sync.Mutex
	say := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, format, a...)
	}
	rows := make([]replayRow, len(files))
	var g errgroup.Group // a recording's failure is its row, not the group's error
	g.SetLimit(parallel)
	for i, f := range files {
		rows[i] = replayRow{file: f, name: strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))}
		r := &rows[i]
		g.Go(func() error {
			ro := o
			ro.Source = r.file
			ro.Prepared = func(p recordings.ReplayPrepared) {
				if verbose {
					var chs []string
					for from, to := range p.Channels {
						chs = append(chs, from+" as "+to)
					}
					sort.Strings(chs)
					say("  %s: into %s, a copy of %s (%s)\n", r.name, p.Scenario, p.Against, strings.Join(chs, ", "))
				}
				r.before = p.Differences
				for _, d := range p.Differences {
					say("  %s: DIFFERENT TARGET: %s\n", r.name, d)
				}
				for _, d := range p.Notes {
					say("  %s: note: %s\n", r.name, d)
				}
			}
			if verbose || keepSteps {
				ro.Step = func(s recordings.ReplayStep) {
					r.steps = append(r.steps, s)
					if !verbose {
						return
					}
					verdict := "ok"
					if s.Differences > 0 {
						verdict = fmt.Sprintf("%d difference(s)", s.Differences)
					}
					say("  %s: step %s %s: HTTP %d in %s, %s\n", r.name, s.ID, s.Label, s.Status, s.Elapsed.Round(time.Millisecond), verdict)
				}
			}
			ro.Waiting = func(step string, waited time.Duration) {
				say("  %s: step %s still waiting after %s (an injected delay or a slow target)\n", r.name, step, waited)
			}
			say("replay %s (%s) ...\n", r.name, r.file)
			start := time.Now()
			data, err := os.ReadFile(r.file)
			if err == nil {
				r.res, err = recordings.Replay(cmd.Context(), data, ro)
			}
			r.err, r.elapsed = err, time.Since(start)
			switch {
			case err != nil:
				say("ERROR %s: %v\n", r.name, err)
			case r.res.OK():
				say("ok    %s: %d steps, no difference (%s)\n", r.name, r.res.Steps, r.elapsed.Round(time.Millisecond))
			default:
				say("FAIL  %s: %s", r.name, r.res.Report)
			}
			return nil
		})
	}
	_ = g.Wait()
	return rows
}

func printSummary(w io.Writer, rows []replayRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w)
	fmt.Fprintln(tw, "RECORDING\tSTEPS\tDIFFERENCES\tTIME\tRESULT\t")
	failed := 0
	for _, r := range rows {
		steps, diffs, result := "-", "-", "ok"
		if r.res != nil {
			steps, diffs = fmt.Sprint(r.res.Steps), fmt.Sprint(r.res.Differences)
		}
		switch {
		case r.err != nil:
			result = "error"
		case !r.res.OK():
			result = "FAIL"
		}
		if !r.ok() {
			failed++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", r.file, steps, diffs, r.elapsed.Round(time.Millisecond), result)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "%d recording(s), %d passed, %d failed\n", len(rows), len(rows)-failed, failed)
}

func writeReplayJUnit(path string, rows []replayRow, perStep bool) error {
	s := junitSuite{Name: "rewardsim replay"}
	var total time.Duration
	for _, r := range rows {
		total += r.elapsed
		if perStep && r.err == nil {
			s.Cases = append(s.Cases, stepCases(r)...)
			continue
		}
		c := junitCase{Name: filepath.Base(r.file), ClassName: replayClass(r.file), Time: seconds(r.elapsed)}
		switch {
		case r.err != nil:
			c.Error = &junitProblem{Message: r.err.Error(), Type: "replay error", Text: r.err.Error()}
		case !r.res.OK():
			c.Failure = &junitProblem{Message: fmt.Sprintf("%d difference(s) from the recording", r.res.Differences), Type: "difference", Text: r.res.Report}
		default:
			c.SystemOut = r.res.Report
		}
		s.Cases = append(s.Cases, c)
	}
	s.Time = seconds(total)
	data, err := junitXML(s)
	if err != nil {
		return err
	}
	return writeFile(path, data)
}

// stepCases are a recording's JUnit cases with --junit-steps: one per
// step, classname the recording's, and one for the target when it
// differed from what was recorded before the first step.
func stepCases(r replayRow) []junitCase {
	class := replayClass(r.file) + "." + strings.ReplaceAll(r.name, ".", "_")
	var out []junitCase
	if len(r.before) > 0 {
		text := strings.Join(r.before, "\n")
		out = append(out, junitCase{Name: "target", ClassName: class, Time: seconds(0),
			Failure: &junitProblem{Message: fmt.Sprintf("%d difference(s) before the first step", len(r.before)), Type: "difference", Text: text}})
	}
	for _, st := range r.steps {
		c := junitCase{Name: st.ID + " " + st.Label, ClassName: class, Time: seconds(st.Elapsed)}
		if st.Differences > 0 {
			c.Failure = &junitProblem{Message: fmt.Sprintf("%d difference(s) from the recording", st.Differences), Type: "difference", Text: st.Diff}
		}
		out = append(out, c)
	}
	return out
}

// replayClass is a recording's JUnit classname: "replay", or
// "replay.<folder>" (the folder holding the file, its dots made
// underscores, since CI systems such as Jenkins split classnames at dots
// into packages).
func replayClass(file string) string {
	dir := filepath.Base(filepath.Dir(file))
	if dir == "." || dir == "/" || dir == "" {
		return "replay"
	}
	return "replay." + strings.ReplaceAll(dir, ".", "_")
}

func newRecordCmd() *cobra.Command {
	var upstream, listen, out, name string
	cmd := &cobra.Command{
		Use:   "record",
		Short: "Proxy a publisher's traffic to an upstream service and write it as a recording",
		Long: `Record listens on --listen, forwards every request to --upstream (a real UAT or
another rewardsim; one URL, or rewards,bank,hotdeals) and, when stopped with
Ctrl-C or SIGTERM, writes the exchanges as a recording to --out (standard
output by default; messages go to standard error).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rec, err := recordings.NewRecorder(recordings.RecorderOptions{Upstream: upstream, ReadSwitches: calibrate.ReadAnswers})
			if err != nil {
				return err
			}
			if name == "" {
				name = nameOf(out)
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return err
			}
			srv := &http.Server{Handler: rec, ReadHeaderTimeout: 10 * time.Second}
			go func() { _ = srv.Serve(ln) }()
			msg := cmd.ErrOrStderr()
			fmt.Fprintf(msg, "rewardsim record: proxying http://%s to %s; Ctrl-C writes the recording\n", ln.Addr(), upstream)
			<-cmd.Context().Done()
			shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(shutdown)
			data, err := rec.Recording(name, "recorded through rewardsim record from "+upstream)
			if err != nil {
				return err
			}
			if err := writeOut(cmd, out, data); err != nil {
				return err
			}
			fmt.Fprintf(msg, "rewardsim record: %d exchanges written to %s\n", rec.Len(), orStdout(out))
			if n := rec.Note(); n.Rewritten > 0 || n.LeftInSigned > 0 {
				fmt.Fprintf(msg, "rewardsim record: %d absolute URL(s) of the upstream in answers pointed at the proxy (noted in the recording)\n", n.Rewritten)
				if n.LeftInSigned > 0 {
					fmt.Fprintf(msg, "rewardsim record: warning: %d URL(s) of the upstream inside signed answers left as they were (rewriting breaks SIGN): calls to them bypass the proxy and are not recorded\n", n.LeftInSigned)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&upstream, "upstream", "", "service to forward to: one URL, or rewards,bank,hotdeals")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8070", "address the publisher calls instead of the service")
	cmd.Flags().StringVarP(&out, "out", "o", "-", "file to write the recording to (- for standard output)")
	cmd.Flags().StringVar(&name, "name", "", "recording name (default: the file name)")
	_ = cmd.MarkFlagRequired("upstream")
	return cmd
}

// nameOf names a recording by the file it is written to.
func nameOf(out string) string {
	if out == "" || out == "-" {
		return "recording"
	}
	return strings.TrimSuffix(filepath.Base(out), filepath.Ext(out))
}

func orStdout(path string) string {
	if path == "" || path == "-" {
		return "standard output"
	}
	return path
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// newRecordingCmd is "rewardsim recording"; "session" is its former name,
// kept as an alias so existing scripts run.
func newRecordingCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "recording", Aliases: []string{"session"}, Short: "Work with recordings of traffic (the journal exported for replay)"}
	var ctl controlClient
	var out, name, channel, virtualID, endpoint, from, to string
	export := &cobra.Command{
		Use:   "export",
		Short: "Write a slice of a running simulator's journal as a recording",
		Example: "  rewardsim recording export --channel DEMOBANK --out checkout.json\n" +
			"  rewardsim session export --virtual-id VU-1 > vu1.json   # the former name still works",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if name == "" {
				name = nameOf(out)
			}
			q := url.Values{"name": {name}}
			for k, v := range map[string]string{"channel": channel, "virtualId": virtualID, "endpoint": endpoint, "from": from, "to": to} {
				if v != "" {
					q.Set(k, v)
				}
			}
			data, err := controlapi.Body(ctl.Recording(cmd.Context(), q))
			if err != nil {
				return err
			}
			if err := writeOut(cmd, out, data); err != nil {
				return err
			}
			if out != "" && out != "-" {
				fmt.Fprintf(cmd.ErrOrStderr(), "recording %s written to %s\n", name, out)
			}
			if warn, err := recordings.Unresolved(data); err == nil {
				for _, w := range warn {
					fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w)
				}
			}
			return nil
		},
	}
	addControlFlags(export, &ctl)
	export.Flags().StringVarP(&out, "out", "o", "-", "file to write the recording to (- for standard output)")
	export.Flags().StringVar(&name, "name", "", "recording name (default: the file name)")
	export.Flags().StringVar(&channel, "channel", "", "only this channel (name or CHANNELID)")
	export.Flags().StringVar(&virtualID, "virtual-id", "", "only this user")
	export.Flags().StringVar(&endpoint, "endpoint", "", "only this operation or path")
	export.Flags().StringVar(&from, "from", "", "only from this time (RFC 3339, simulated time)")
	export.Flags().StringVar(&to, "to", "", "only before this time (RFC 3339, simulated time)")
	cmd.AddCommand(export, newRecordingDiffCmd())
	return cmd
}

// reportDoc is the part of GET /__sim/report the command reads.
type reportDoc struct {
	Exchanges      int    `json:"exchanges"`
	JournalDropped uint64 `json:"journalDropped"`
	Checked        []struct {
		ID, Clause, Severity, Title string
	} `json:"checked"`
	NotCheckable []struct {
		ID, Title, How string
	} `json:"notCheckable"`
	Skipped  []struct{ ID, Why string } `json:"skipped"`
	Findings []struct {
		ID, Clause, Severity, Title, Advice, Reading string
		Count                                        int
		Example                                      struct {
			Seq    uint64
			Method string
			Path   string
			Detail string
		}
	} `json:"findings"`
}

var severityRank = map[string]int{"info": 1, "warning": 2, "error": 3}

func newReportCmd() *cobra.Command {
	var ctl controlClient
	var channel, failOn, junit string
	var noCards bool
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Print the conformance report of a running simulator; exit 1 on findings of --fail-on severity",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			min, ok := severityRank[failOn]
			if !ok && failOn != "none" {
				return fmt.Errorf("--fail-on %q: want error, warning, info or none", failOn)
			}
			q := url.Values{}
			if channel != "" {
				q.Set("channel", channel)
			}
			if noCards {
				q.Set("noCardsRendered", "true")
			}
			data, err := controlapi.Body(ctl.Report(cmd.Context(), q))
			if err != nil {
				return err
			}
			var r reportDoc
			if err := json.Unmarshal(data, &r); err != nil {
				return fmt.Errorf("report: %w", err)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "conformance report: %d exchanges, %d finding(s)\n", r.Exchanges, len(r.Findings))
			if r.JournalDropped > 0 {
				fmt.Fprintf(w, "warning: the journal dropped %d exchanges under overload; findings may be missing\n", r.JournalDropped)
			}
			failing := 0
			for _, f := range r.Findings {
				fmt.Fprintf(w, "%-7s %-6s x%d  %s\n        e.g. #%d %s %s: %s\n        advice: %s\n", f.Severity, f.Clause, f.Count, f.Title, f.Example.Seq, f.Example.Method, f.Example.Path, f.Example.Detail, f.Advice)
				if f.Reading != "" {
					fmt.Fprintf(w, "        the simulator's reading: %s\n", f.Reading)
				}
				if failOn != "none" && severityRank[f.Severity] >= min {
					failing++
				}
			}
			if len(r.NotCheckable) > 0 {
				fmt.Fprintln(w, "not checkable from here (no finding says nothing about these):")
				for _, u := range r.NotCheckable {
					fmt.Fprintf(w, "  - %s\n    how to test: %s\n", u.Title, u.How)
				}
			}
			for _, s := range r.Skipped {
				fmt.Fprintf(w, "not checked: %s: %s\n", s.ID, s.Why)
			}
			if junit != "" {
				if err := writeReportJUnit(junit, r, failOn, min); err != nil {
					return err
				}
			}
			if failing > 0 {
				return errors.New(fmt.Sprint(failing, " finding(s) of severity ", failOn, " or worse"))
			}
			return nil
		},
	}
	addControlFlags(cmd, &ctl)
	cmd.Flags().StringVar(&channel, "channel", "", "only this channel (name or CHANNELID)")
	cmd.Flags().StringVar(&failOn, "fail-on", "error", "exit 1 when a finding of this severity or worse exists: error, warning, info or none")
	cmd.Flags().BoolVar(&noCards, "no-cards-rendered", false, "the service renders no cards (a back end): do not check that it fires trackLink impressions (TRK-1)")
	cmd.Flags().StringVar(&junit, "junit", "", "also write JUnit XML to this file: a test case per rule checked, each finding a failure")
	return cmd
}

// writeReportJUnit writes a test case per rule the report checked; a rule
// with a finding of the --fail-on severity or worse fails with the
// finding's example and advice, one below it passes with them as its
// output, as the exit status does.
func writeReportJUnit(path string, r reportDoc, failOn string, min int) error {
	s := junitSuite{Name: "rewardsim report", Time: seconds(0)}
	found := map[string]int{}
	for i, f := range r.Findings {
		found[f.ID] = i
	}
	for _, rule := range r.Checked {
		c := junitCase{Name: rule.Clause + " " + rule.ID, ClassName: "report." + rule.Severity, Time: seconds(0)}
		if i, ok := found[rule.ID]; ok {
			f := r.Findings[i]
			text := fmt.Sprintf("%s %s x%d: %s\ne.g. #%d %s %s: %s\nadvice: %s\n", f.Severity, f.Clause, f.Count, f.Title, f.Example.Seq, f.Example.Method, f.Example.Path, f.Example.Detail, f.Advice)
			if failOn != "none" && severityRank[f.Severity] >= min {
				c.Failure = &junitProblem{Message: fmt.Sprintf("%s (x%d)", f.Title, f.Count), Type: f.Severity, Text: text}
			} else {
				c.SystemOut = "below --fail-on " + failOn + ": " + text
			}
		}
		s.Cases = append(s.Cases, c)
	}
	data, err := junitXML(s)
	if err != nil {
		return err
	}
	return writeFile(path, data)
}

// siblingScenario finds the scenario an overlay extends as validate does
// from a file: a file of that name in the same folder.
func siblingScenario(file string) func(name string) ([]byte, bool) {
	return func(name string) ([]byte, bool) {
		for _, ext := range []string{".yaml", ".yml"} {
			sib := filepath.Join(filepath.Dir(file), filepath.Base(name)+ext)
			if sib == file {
				continue
			}
			if b, err := os.ReadFile(sib); err == nil {
				return b, true
			}
		}
		return nil, false
	}
}
