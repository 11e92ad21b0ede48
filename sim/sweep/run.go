package sweep

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
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
	Timeout   time.Duration // per run
	Delay     time.Duration // of the delay and commit-then-delay rows
	Out       string        // folder of the outputs ("" : none written)
	FailOn    string
	Command   []string
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
}

// run makes a channel like o.Like, arms the row's fault there (none for
// the baseline), runs the command with its environment, reads what it
// left and cleans up.
func (s *sweeper) run(ctx context.Context, row Row, n int, baseline bool) (Result, evidence, error) {
	ch := fmt.Sprintf("%s-%03d", s.o.Prefix, n)
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
	if _, err := s.o.Control.PostJSON(ctx, "/__sim/faults", r); err != nil {
		return res, evidence{}, err
	}
	env, err := s.env(ch, row, baseline)
	if err != nil {
		return res, evidence{}, err
	}
	start := time.Now()
	ev := evidence{}
	res.output, ev.exit, ev.timedOut, err = execute(ctx, s.o.Command, env, s.o.Timeout)
	res.Seconds = time.Since(start).Seconds()
	if err != nil {
		return res, ev, err
	}
	if err := s.collect(ctx, ch, &ev); err != nil {
		return res, ev, err
	}
	res.Exit, res.Fired, res.entries, res.Exchanges = ev.exit, ev.fired, ev.entries, len(ev.entries)
	return res, ev, nil
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
		"REWARDSIM_SWEEP_ROW="+string(rowJSON),
	), nil
}

func (s *sweeper) makeChannel(ctx context.Context, ch string) error {
	if _, err := s.o.Control.PostJSON(ctx, "/__sim/channels", map[string]string{"name": ch, "like": s.o.Like}); err != nil {
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
		_, _ = c.Send(ctx, http.MethodDelete, "/__sim/faults/"+url.PathEscape(r.ID), nil, "", nil)
		if !slices.Contains(channels, r.Channel) {
			channels = append(channels, r.Channel)
		}
	}
	for _, x := range slices.Backward(channels) {
		_, _ = c.Send(ctx, http.MethodDelete, "/__sim/journal", url.Values{"channel": {x}}, "", nil)
		_, _ = c.Send(ctx, http.MethodDelete, "/__sim/channels/"+url.PathEscape(x), nil, "", nil)
	}
	s.mu.Lock()
	s.made = slices.DeleteFunc(s.made, func(x string) bool { return x == ch })
	s.mu.Unlock()
}

// rules are the run's fault rule (ID ch) and its copies on channels made
// like ch (ID ch~copy, controlplane's copyRuntimeFaults).
func (s *sweeper) rules(ctx context.Context, ch string) ([]fault.Status, error) {
	var list struct {
		Rules []fault.Status `json:"rules"`
	}
	if err := s.o.Control.CallJSON(ctx, http.MethodGet, "/__sim/faults", nil, &list); err != nil {
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
		raw, err := s.o.Control.Do(ctx, http.MethodGet, "/__sim/journal", q, "", nil)
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

// writeRun keeps a run's output, journal slice and the sequence diagram
// of its faulted exchange under dir/runs/<n>.
func writeRun(dir string, n int, r *Result) error {
	if dir == "" {
		return nil
	}
	rel := filepath.Join("runs", fmt.Sprintf("%03d", n))
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
