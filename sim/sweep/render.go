package sweep

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/picture"
)

// Marks of the matrix, one per grade.
var Marks = map[string]string{NotReached: "-", Handled: "+", Surfaced: "s", TimedOut: "T", Unsafe: "X"}

// ansi colours a mark on a terminal.
var ansi = map[string]string{NotReached: "\x1b[90m", Handled: "\x1b[32m", Surfaced: "\x1b[33m", TimedOut: "\x1b[35m", Unsafe: "\x1b[1;31m"}

// short names a matrix column in a few letters.
var short = map[string]string{
	"internal-error": "IE", "signature-mismatch": "SIG", "http-status": "503", "delay": "DLY",
	"drop-connection": "DROP", "malformed-body": "MALF", "not-eligible": "NELIG",
	"commit-then-delay": "C+DLY", "commit-then-drop": "C+DROP",
	"answer-sign-other-bytes": "S:BYTES", "answer-sign-other-key": "S:KEY", "answer-sign-absent": "S:NONE",
	"coupon-error INVALID_REQUEST": "C:REQ", "coupon-error UNAUTHORIZED": "C:AUTH", "coupon-error NON_ELIGIBLE": "C:NELIG",
	"coupon-error INVALID_OFFER": "C:OFFER", "coupon-error COUPON_EXHAUSTED": "C:EXH", "coupon-error DUPLICATE_TRANSACTION": "C:DUP",
	"coupon-error MAX_LIMIT_REACHED": "C:LIMIT", "coupon-error INTERNAL_ERROR": "C:INT",
}

// matrix is the rows arranged as endpoints × columns, each cell the
// results of its whens.
type matrix struct {
	endpoints, columns []string
	cells              map[[2]string][]Result
}

func arrange(rows []Result) matrix {
	m := matrix{cells: map[[2]string][]Result{}}
	for _, r := range rows {
		if !slices.Contains(m.endpoints, r.Endpoint) {
			m.endpoints = append(m.endpoints, r.Endpoint)
		}
		if !slices.Contains(m.columns, r.Kind) {
			m.columns = append(m.columns, r.Kind)
		}
		k := [2]string{r.Endpoint, r.Kind}
		m.cells[k] = append(m.cells[k], r)
	}
	// Columns in the order of fault.Kinds, coupon codes in CouponCodes
	// order; endpoints in contract order.
	slices.SortStableFunc(m.columns, func(a, b string) int { return columnRank(a) - columnRank(b) })
	ops := map[string]int{}
	for i, op := range contract.Ops {
		ops[op.Name] = i
	}
	slices.SortStableFunc(m.endpoints, func(a, b string) int { return ops[a] - ops[b] })
	return m
}

func label(col string) string {
	if s, ok := short[col]; ok {
		return s
	}
	return col
}

// Terminal writes the matrix (endpoints down, kinds across, a mark per
// when in each cell), its legend and the summary line; colour adds ANSI
// colours.
func Terminal(w io.Writer, r *Report, colour bool) {
	m := arrange(r.Rows)
	epw := len("endpoint")
	for _, e := range m.endpoints {
		epw = max(epw, len(e))
	}
	fmt.Fprintf(w, "%-*s", epw, "endpoint")
	for _, c := range m.columns {
		fmt.Fprintf(w, " %-*s", colWidth(c), label(c))
	}
	fmt.Fprintln(w)
	for _, e := range m.endpoints {
		fmt.Fprintf(w, "%-*s", epw, e)
		for _, c := range m.columns {
			cell := m.cells[[2]string{e, c}]
			text := ""
			for _, res := range cell {
				mk := Marks[res.Grade]
				if colour {
					mk = ansi[res.Grade] + mk + "\x1b[0m"
				}
				text += mk
			}
			fmt.Fprintf(w, " %s%s", text, strings.Repeat(" ", colWidth(c)-len(cell)))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "marks (%s in each cell): ", whenOrder(r.When))
	for _, g := range Grades {
		fmt.Fprintf(w, "%s %s  ", Marks[g], g)
	}
	fmt.Fprintln(w)
	for _, res := range r.Rows {
		if res.Grade == Unsafe || res.Grade == TimedOut {
			fmt.Fprintf(w, "%s %s: %s", strings.ToUpper(res.Grade), res.ID, res.Note)
			if res.Next != "" {
				fmt.Fprintf(w, " (then: %s)", res.Next)
			}
			fmt.Fprintln(w)
		}
	}
	for _, line := range append(BaselineLines(r), StrictLines(r)...) {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w, Summary(r))
}

// StrictLines name the tests that fail under nearly every fault.
func StrictLines(r *Report) []string {
	var out []string
	for _, s := range r.Strict {
		out = append(out, fmt.Sprintf("strict test: %s failed under %d of %d faults that reached its run: it asserts exact calls or answers, so its failure alone does not say the service broke", s.Name, s.Failed, s.Of))
	}
	return out
}

// BaselineLines say what the baseline runs broke: flaky in the
// baseline, graded in no row, with the tests or flows it came from.
func BaselineLines(r *Report) []string {
	var out []string
	for _, b := range r.BaselineFindings {
		line := fmt.Sprintf("flaky in the baseline, not graded: %s (%s) in %d of %d baseline runs", b.Rule, b.Clause, b.Runs, r.BaselineRuns)
		if len(b.From) > 0 {
			line += ", from " + strings.Join(b.From, "; ")
		}
		out = append(out, line)
	}
	return out
}

func colWidth(col string) int { return max(len(label(col)), 2) }

func whenOrder(when string) string {
	if when == Both {
		return "first, every"
	}
	return when
}

// Summary is the one-line summary of a sweep.
func Summary(r *Report) string {
	var parts []string
	for _, g := range Grades {
		if n := r.Totals[g]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, g))
		}
	}
	if len(parts) == 0 {
		parts = []string{"no row"}
	}
	s := fmt.Sprintf("sweep: %d rows in %.1fs: %s", len(r.Rows), r.Seconds, strings.Join(parts, ", "))
	if r.Failed {
		s += fmt.Sprintf("; FAILED (--fail-on %s)", r.FailOn)
	}
	if r.Note != "" {
		s += "\nnote: " + r.Note
	}
	return s
}

// faultedSequence draws the run's exchanges from the first one a fault
// answered (all of them if none did): the faulted exchange and what the
// client did next.
func faultedSequence(w io.Writer, r *Result) error {
	es := r.entries
	for i, e := range es {
		if e.Fault != "" {
			es = es[i:]
			break
		}
	}
	title := "sweep " + r.ID + " on " + r.Channel
	return picture.Sequence(w, title, picture.Calls(slices.Clone(es)))
}

func columnRank(col string) int {
	kind, code, _ := strings.Cut(col, " ")
	return slices.Index(fault.Kinds, kind)*100 + slices.Index(CouponCodes, code)
}
