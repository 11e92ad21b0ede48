package sweep

import (
	"context"
	"errors"
	"fmt"
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
}

// Run sweeps: the baseline first (a failing one is a *BaselineError),
// then every planned row, o.Parallel at a time. An interrupted sweep
// (ctx ended) deletes the channels it made and returns ctx's error.
func Run(ctx context.Context, o Options) (*Report, error) {
	s := &sweeper{o: o}
	defer s.cleanup()
	rep := &Report{Version: SchemaVersion, Command: o.Command, Like: o.Like, When: o.When, Parallel: o.Parallel,
		FailOn: o.FailOn, Started: time.Now().UTC(), Totals: map[string]int{}, Rows: []Result{}}
	base, bev, err := s.run(ctx, Row{ID: "baseline"}, 0, true)
	if err != nil {
		return nil, err
	}
	switch {
	case bev.timedOut:
		return nil, &BaselineError{Exit: -1, Output: base.output, Reason: fmt.Sprintf("did not finish within --timeout %s", o.Timeout)}
	case bev.exit != 0:
		return nil, &BaselineError{Exit: bev.exit, Output: base.output, Reason: fmt.Sprintf("exited %d", bev.exit)}
	}
	base.verdict = verdict{findings: findings(bev), deliveries: maxDeliveries(bev.entries)}
	base.Grade, base.Findings, base.Deliveries = Handled, base.verdict.findings, base.verdict.deliveries
	if err := writeRun(o.Out, 0, &base); err != nil {
		return nil, err
	}
	rep.Baseline, rep.Called = base, append([]string{}, called(bev.entries)...)
	rows := Plan(rep.Called, o.Only, KindFilter(o.Kinds), o.When, o.Delay)
	if rep.Rows, err = s.runRows(ctx, rows, base.verdict); err != nil {
		return nil, err
	}
	rep.Seconds = time.Since(rep.Started).Seconds()
	for _, r := range rep.Rows {
		rep.Totals[r.Grade]++
		rep.Failed = rep.Failed || AtLeast(r.Grade, o.FailOn)
	}
	rep.Note = note(rep)
	return rep, nil
}

// runRows runs rows on o.Parallel workers; results keep the rows' order.
func (s *sweeper) runRows(ctx context.Context, rows []Row, base verdict) ([]Result, error) {
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

func (s *sweeper) runRow(ctx context.Context, row Row, n int, base verdict) (Result, error) {
	res, ev, err := s.run(ctx, row, n, false)
	if err != nil {
		return res, fmt.Errorf("row %s: %w", row.ID, err)
	}
	res.verdict = gradeRun(ev, row.Endpoint, base)
	res.Grade, res.Next, res.Note, res.Findings, res.Deliveries = res.verdict.grade, res.verdict.next, res.verdict.note, res.verdict.findings, res.verdict.deliveries
	if err := writeRun(s.o.Out, n, &res); err != nil {
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
