package sweep

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// SchemaVersion is sweep.json's version (schemas/sweep.json).
const SchemaVersion = 1

// Report is a whole sweep: sweep.json.
type Report struct {
	Version  int       `json:"version"`
	Command  []string  `json:"command"`
	Like     string    `json:"like"`
	When     string    `json:"when"`
	Parallel int       `json:"parallel"`
	FailOn   string    `json:"failOn"`
	Started  time.Time `json:"started"`
	Seconds  float64   `json:"seconds"`
	// Called are the endpoints the baseline called.
	Called   []string       `json:"called"`
	Baseline Result         `json:"baseline"`
	Rows     []Result       `json:"rows"`
	Totals   map[string]int `json:"totals"`
	// Failed: a row is graded FailOn or worse (the exit status 1).
	Failed bool   `json:"failed"`
	Note   string `json:"note,omitempty"`
	// BaselineRuns is how often the baseline ran; BaselineFindings what
	// any of those runs broke (none of it graded in a row).
	BaselineRuns     int               `json:"baselineRuns"`
	BaselineFindings []BaselineFinding `json:"baselineFindings"`
	// Strict are the tests that failed under nearly every fault that
	// reached them (from the runs' JUnit XML or TAP).
	Strict []StrictTest `json:"strict,omitempty"`
}

// BaselineFinding is a finding of a baseline run: never graded, since
// no fault caused it, and flaky when some baseline runs had it and
// others did not.
type BaselineFinding struct {
	Rule     string `json:"rule"`
	Clause   string `json:"clause"`
	Severity string `json:"severity"`
	Title    string `json:"title"`
	// Runs is how many baseline runs had it (of Report.BaselineRuns).
	Runs int `json:"runs"`
	// From are the tests or flows its examples came from.
	From []string `json:"from"`
}

// Run sweeps: the baseline o.BaselineRuns times first (a failing run is
// a *BaselineError), then every planned row, o.Parallel at a time. An
// interrupted sweep (ctx ended) deletes the channels it made and returns
// ctx's error.
func Run(ctx context.Context, o Options) (*Report, error) {
	o.BaselineRuns = max(o.BaselineRuns, 1)
	s := &sweeper{o: o}
	defer s.cleanup()
	rep := &Report{Version: SchemaVersion, Command: o.Command, Like: o.Like, When: o.When, Parallel: o.Parallel,
		FailOn: o.FailOn, Started: time.Now().UTC(), Totals: map[string]int{}, Rows: []Result{}, Called: []string{}, BaselineRuns: o.BaselineRuns,
		BaselineFindings: []BaselineFinding{}}
	bases, err := s.baselines(ctx)
	if err != nil {
		return nil, err
	}
	base := baseline{rules: map[string]bool{}}
	for i, b := range bases {
		b.res.verdict = verdict{findings: findings(b.ev, nil), deliveries: maxDeliveries(b.ev.entries)}
		b.res.Grade, b.res.Findings, b.res.Deliveries = Handled, b.res.verdict.findings, b.res.verdict.deliveries
		if err := writeRun(o.Out, baselineName(i), &b.res); err != nil {
			return nil, err
		}
		base.deliveries = max(base.deliveries, b.res.Deliveries)
		for _, f := range b.res.Findings {
			base.rules[f.Rule] = true
			rep.BaselineFindings = noteBaseline(rep.BaselineFindings, f)
		}
		for _, ep := range called(b.ev.entries) {
			if !slices.Contains(rep.Called, ep) {
				rep.Called = append(rep.Called, ep)
			}
		}
		bases[i] = b
	}
	rep.Baseline = bases[0].res
	evs := make([]evidence, len(bases))
	for i, b := range bases {
		evs[i] = b.ev
	}
	s.callers = callers(evs)
	rows := Plan(rep.Called, o.Only, KindFilter(o.Kinds), o.When, o.Delay)
	if rep.Rows, err = s.runRows(ctx, rows, base); err != nil {
		return nil, err
	}
	rep.Seconds = time.Since(rep.Started).Seconds()
	rep.Strict = strictTests(rep.Rows)
	for i, r := range rep.Rows {
		if r.Only != nil {
			r.Note = joinNote(r.Note, fmt.Sprintf("ran only the tests that called %s in the baseline: %s", r.Endpoint, strings.Join(r.Only, ", ")))
		}
		rep.Rows[i].Note = joinNote(r.Note, failedNote(r))
	}
	for _, r := range rep.Rows {
		rep.Totals[r.Grade]++
		rep.Failed = rep.Failed || AtLeast(r.Grade, o.FailOn)
	}
	rep.Note = note(rep)
	return rep, nil
}

// baselineRun is one run of the command with no fault.
type baselineRun struct {
	res Result
	ev  evidence
}

// baselines runs the command o.BaselineRuns times with no fault,
// o.Parallel at a time; a run that fails or times out fails the sweep.
func (s *sweeper) baselines(ctx context.Context) ([]baselineRun, error) {
	n := s.o.BaselineRuns
	out := make([]baselineRun, n)
	errs := make([]error, n)
	slots := make(chan struct{}, s.o.Parallel)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			out[i].res, out[i].ev, errs[i] = s.run(ctx, Row{ID: "baseline"}, baselineName(i), true)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	passed := 0
	for _, b := range out {
		if !b.ev.timedOut && b.ev.exit == 0 {
			passed++
		}
	}
	for i, b := range out {
		which := ""
		if passed > 0 {
			which = fmt.Sprintf(" (run %d of %d; %d passed: the suite is flaky)", i+1, n, passed)
		}
		switch {
		case b.ev.timedOut:
			return nil, &BaselineError{Exit: -1, Output: b.res.output, Reason: fmt.Sprintf("did not finish within --timeout %s%s", s.o.Timeout, which)}
		case b.ev.exit != 0:
			return nil, &BaselineError{Exit: b.ev.exit, Output: b.res.output, Reason: fmt.Sprintf("exited %d%s", b.ev.exit, which)}
		}
	}
	return out, nil
}

// baselineName names baseline run i: 000, then 000-2, 000-3 ...
func baselineName(i int) string {
	if i == 0 {
		return "000"
	}
	return fmt.Sprintf("000-%d", i+1)
}

// noteBaseline counts f among the baseline's findings.
func noteBaseline(list []BaselineFinding, f Finding) []BaselineFinding {
	i := slices.IndexFunc(list, func(b BaselineFinding) bool { return b.Rule == f.Rule })
	if i < 0 {
		list = append(list, BaselineFinding{Rule: f.Rule, Clause: f.Clause, Severity: f.Severity, Title: f.Title, From: []string{}})
		i = len(list) - 1
	}
	list[i].Runs++
	if f.From != "" && !slices.Contains(list[i].From, f.From) {
		list[i].From = append(list[i].From, f.From)
	}
	return list
}

// runRows runs rows on o.Parallel workers; results keep the rows' order.
func (s *sweeper) runRows(ctx context.Context, rows []Row, base baseline) ([]Result, error) {
	out := make([]Result, len(rows))
	errs := make([]error, len(rows))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < s.o.Parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = s.runRow(ctx, rows[i], i+1, base)
			}
		}()
	}
feed:
	for i := range rows {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return out, errors.Join(errs...)
}

func (s *sweeper) runRow(ctx context.Context, row Row, n int, base baseline) (Result, error) {
	name := fmt.Sprintf("%03d", n)
	res, ev, err := s.run(ctx, row, name, false)
	if err != nil {
		return res, fmt.Errorf("row %s: %w", row.ID, err)
	}
	res.verdict = gradeRun(ev, row.Endpoint, base)
	res.Grade, res.Next, res.Note, res.Findings, res.Deliveries = res.verdict.grade, res.verdict.next, res.verdict.note, res.verdict.findings, res.verdict.deliveries
	if err := writeRun(s.o.Out, name, &res); err != nil {
		return res, err
	}
	if s.o.Progress != nil {
		s.o.Progress(res)
	}
	return res, nil
}

// cleanup deletes the channels a run left (an interrupted one).
func (s *sweeper) cleanup() {
	s.mu.Lock()
	left := append([]string(nil), s.made...)
	s.mu.Unlock()
	for _, ch := range left {
		s.dropChannel(ch)
	}
}

// failedNote names the tests a run failed, or says only strict ones did:
// the test asserted a count, the service did not break.
func failedNote(r Result) string {
	if r.Tests == nil || len(r.Tests.Failed) == 0 {
		return ""
	}
	var names []string
	strict := 0
	for _, f := range r.Tests.Failed {
		names = append(names, f.Name)
		if f.Strict {
			strict++
		}
	}
	if strict == len(names) {
		return "only strict tests failed (they fail under nearly every fault): " + strings.Join(names, ", ")
	}
	return "failed: " + strings.Join(names, ", ")
}

func joinNote(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// note explains a sweep whose rows all went unreached, or that had none.
func note(r *Report) string {
	switch {
	case len(r.Called) == 0:
		return "the baseline run made no call to the simulator on its channel: does the command read REWARDSIM_URL and REWARDSIM_CHANNEL?"
	case len(r.Rows) == 0:
		return "no row: --only and --kinds left none of the endpoints the baseline called (" + strings.Join(r.Called, ", ") + ")"
	case r.Totals[NotReached] == len(r.Rows):
		return "no fault fired: the command made no matching call on its run's channel in any row"
	}
	return ""
}
