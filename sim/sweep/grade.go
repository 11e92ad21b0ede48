package sweep

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/report"
)

// Grades, mildest first; --fail-on names one and fails on it or worse.
const (
	NotReached = "not-reached" // the fault never fired
	Handled    = "handled"     // the command passed, no finding
	Surfaced   = "surfaced"    // the command failed, no finding
	TimedOut   = "timed-out"   // the run outlived --timeout
	Unsafe     = "unsafe"      // an error finding, or two deliveries for one claim
)

// Grades lists the grades in the order of their rank.
var Grades = []string{NotReached, Handled, Surfaced, TimedOut, Unsafe}

var gradeRank = map[string]int{NotReached: 0, Handled: 0, Surfaced: 1, TimedOut: 2, Unsafe: 3}

// AtLeast reports whether grade is min or worse.
func AtLeast(grade, min string) bool { return gradeRank[grade] >= gradeRank[min] }

// hammerCalls is how many calls after a fault, on the faulted endpoint,
// within hammerWindow, make a client a hammer rather than a retrier.
const (
	hammerCalls  = 10
	hammerWindow = 5 * time.Second
)

// Finding is a conformance report finding, as a row carries it.
type Finding struct {
	Rule     string `json:"rule"`
	Clause   string `json:"clause"`
	Severity string `json:"severity"`
	Title    string `json:"title"`
	Count    int    `json:"count"`
	Seq      uint64 `json:"seq"`
	// From is the test or flow of its example exchange: the test that
	// made the channel (REWARDSIM_SWEEP_CHANNELS), else the channel, and
	// the user.
	From string `json:"from,omitempty"`
	// Connected: it happened in the faulted flow (the channel and user of
	// an exchange the fault answered, at or after it), so the fault could
	// have caused it. Only a connected finding is graded.
	Connected bool `json:"connected,omitempty"`
	// InBaseline: a baseline run has it too, so the fault did not cause it.
	InBaseline bool `json:"inBaseline,omitempty"`
}

// evidence is what a run left: its exit, the fault's counter, the
// journal slice of its channels and the tests that named them.
type evidence struct {
	exit     int
	timedOut bool
	fired    int
	entries  []journal.Entry
	tests    map[string]string // channel -> the test that made it
}

// verdict is a graded run.
type verdict struct {
	grade, next, note string
	findings          []Finding
	deliveries        int // the most coupons delivered for one user and offer
}

// baseline is what the baseline runs did: the rules any of them broke
// and the most coupons one of them delivered for one user and offer.
type baseline struct {
	rules      map[string]bool
	deliveries int
}

// gradeRun grades a run against the baseline: only findings of the
// faulted flow count, and only those no baseline run had.
func gradeRun(ev evidence, endpoint string, base baseline) verdict {
	inFlow, flow := faultedFlow(ev.entries)
	v := verdict{findings: findings(ev, inFlow), deliveries: maxDeliveries(flow)}
	v.next = nextMove(ev.entries, endpoint)
	unsafe, ungraded := []string{}, []string{}
	for i, f := range v.findings {
		f.InBaseline = base.rules[f.Rule]
		v.findings[i] = f
		name := f.Rule + " (" + f.Clause + ")"
		switch {
		case f.Severity != string(report.Error):
		case !f.Connected:
			ungraded = append(ungraded, name+" from "+f.From+": not connected to the faulted exchange")
		case f.InBaseline:
			ungraded = append(ungraded, name+": flaky in the baseline")
		default:
			unsafe = append(unsafe, name)
		}
	}
	if v.deliveries > max(base.deliveries, 1) {
		unsafe = append(unsafe, fmt.Sprintf("%d deliveries for one logical claim (the baseline made at most %d)", v.deliveries, max(base.deliveries, 1)))
	}
	switch {
	case ev.timedOut:
		v.grade, v.note = TimedOut, "the run outlived --timeout; its process group was killed"
	case ev.fired == 0:
		v.grade, v.note = NotReached, "the fault never fired: the command made no matching call on its channel"
	case len(unsafe) > 0:
		v.grade, v.note = Unsafe, strings.Join(unsafe, "; ")
	case ev.exit == 0:
		v.grade = Handled
	default:
		v.grade = Surfaced
	}
	if len(ungraded) > 0 && v.grade != NotReached {
		v.note = joinNote(v.note, "not graded: "+strings.Join(ungraded, "; "))
	}
	return v
}

// faultedFlow is the part of a run the fault could have reached: on each
// channel where it fired, the exchanges of the user of the first
// exchange it answered, and those naming no user (tokens, the
// catalogue); every user's when that exchange names none. Webhook
// attempts are the partner calling the service's receiver, which no
// fault of the sweep answers: they belong to no faulted flow. inFlow
// counts, per rule, the findings of the flow at or after the fault (a
// rule the flow broke before it fired is not the fault's doing); flow is
// the flow's entries from the fault on, in journal order.
func faultedFlow(es []journal.Entry) (inFlow map[string]report.Finding, flow []journal.Entry) {
	inFlow = map[string]report.Finding{}
	first := map[string]journal.Entry{}
	var channels []string
	for _, e := range es {
		if _, seen := first[e.Channel]; e.Fault != "" && e.Kind == journal.KindExchange && !seen {
			first[e.Channel] = e
			channels = append(channels, e.Channel)
		}
	}
	for _, ch := range channels {
		f := first[ch]
		var all, before []journal.Entry
		for _, e := range es {
			if e.Kind != journal.KindExchange || e.Channel != ch || f.VirtualID != "" && e.VirtualID != "" && e.VirtualID != f.VirtualID {
				continue
			}
			all = append(all, e)
			if e.Seq < f.Seq {
				before = append(before, e)
			} else {
				flow = append(flow, e)
			}
		}
		had := map[string]int{}
		for _, x := range report.Build(before, report.Options{}).Findings {
			had[x.ID] = x.Count
		}
		for _, x := range report.Build(all, report.Options{}).Findings {
			if _, dup := inFlow[x.ID]; x.Count > had[x.ID] && !dup {
				inFlow[x.ID] = x
			}
		}
	}
	slices.SortStableFunc(flow, func(a, b journal.Entry) int { return cmp.Compare(a.Seq, b.Seq) })
	return inFlow, flow
}

// findings are the conformance report's findings over the whole run,
// each marked connected when the faulted flow has it (inFlow; its
// example is then the flow's), and naming the test or flow it came from.
func findings(ev evidence, inFlow map[string]report.Finding) []Finding {
	// The entries are the run's channels' alone: no channel filter, so
	// those of a channel made like the run's (REWARDSIM_LIKE) count too.
	r := report.Build(ev.entries, report.Options{})
	out := []Finding{}
	for _, f := range r.Findings {
		x, connected := inFlow[f.ID]
		if !connected {
			x = f
		}
		out = append(out, Finding{Rule: f.ID, Clause: f.Clause, Severity: string(f.Severity), Title: f.Title, Count: f.Count, Seq: x.Example.Seq,
			From: origin(ev, x.Example.Seq), Connected: connected})
	}
	return out
}

// origin names the test or flow of the entry seq: the test that made its
// channel (else the channel), the user, or a webhook push.
func origin(ev evidence, seq uint64) string {
	i := slices.IndexFunc(ev.entries, func(e journal.Entry) bool { return e.Seq == seq })
	if i < 0 {
		return ""
	}
	e := ev.entries[i]
	s := "channel " + e.Channel
	if t := ev.tests[e.Channel]; t != "" {
		s = "test " + t
	}
	switch {
	case e.Kind == journal.KindWebhook:
		s = "a webhook push of " + s
	case e.VirtualID != "":
		s += ", user " + e.VirtualID
	}
	return s
}

// claimBody is the part of a coupon claim the sweep reads.
type claimBody struct {
	VirtualID string `json:"virtualId"`
	OfferID   string `json:"offerId"`
	ExtTxID   string `json:"extTransactionId"`
}

func claimIn(e journal.Entry) (claimBody, bool) {
	var b claimBody
	if e.Endpoint != "fetchCouponCode" || json.Unmarshal(e.Request.Body, &b) != nil || b.ExtTxID == "" {
		return b, false
	}
	return b, true
}

// maxDeliveries is the most claims committed for one user and offer, by
// distinct extTransactionId: a claim answered with a coupon (HTTP 200 and
// no errorCode: the coupon host may answer a refusal with HTTP 200), or
// committed before an injected commit-then-* withheld its answer.
func maxDeliveries(es []journal.Entry) int {
	ids := map[string]map[string]bool{}
	most := 0
	for _, e := range es {
		b, ok := claimIn(e)
		if !ok || !(e.Status == 200 && e.ErrorCode == "" && e.Fault == "" || strings.HasPrefix(e.Fault, "commit-then")) {
			continue
		}
		k := e.Channel + "\x00" + b.VirtualID + "\x00" + b.OfferID
		if ids[k] == nil {
			ids[k] = map[string]bool{}
		}
		ids[k][b.ExtTxID] = true
		most = max(most, len(ids[k]))
	}
	return most
}

// nextMove says what the client did on endpoint after the first call the
// fault answered, counting the calls of the same channel and user (the
// faulted call's virtualId; every user's when it names none): gave up, retried (with the
// same or a new extTransactionId, for a claim), hammered, or, for a claim
// it did not send again, reconciled through getUserCoupons.
func nextMove(es []journal.Entry, endpoint string) string {
	sorted := slices.Clone(es)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Seq < sorted[j].Seq })
	at := slices.IndexFunc(sorted, func(e journal.Entry) bool { return e.Endpoint == endpoint && e.Fault != "" })
	if at < 0 {
		return ""
	}
	faulted := sorted[at]
	var after []journal.Entry
	reconciled := false
	for _, e := range sorted[at+1:] {
		if e.Kind != journal.KindExchange || e.Channel != faulted.Channel || faulted.VirtualID != "" && e.VirtualID != faulted.VirtualID {
			continue
		}
		if e.Endpoint == endpoint {
			after = append(after, e)
		}
		reconciled = reconciled || e.Endpoint == "getUserCoupons" && endpoint == "fetchCouponCode"
	}
	if n := len(after); n >= hammerCalls {
		if span := after[n-1].At.Sub(faulted.At); span <= hammerWindow {
			return fmt.Sprintf("hammered: %d calls in %s", n, span.Round(time.Millisecond))
		}
	}
	first, isClaim := claimIn(faulted)
	if !isClaim {
		if len(after) == 0 {
			return "gave up"
		}
		return fmt.Sprintf("retried ×%d", len(after))
	}
	same, fresh := 0, 0
	for _, e := range after {
		if b, ok := claimIn(e); ok && b.ExtTxID == first.ExtTxID {
			same++
		} else if ok && b.OfferID == first.OfferID {
			fresh++
		}
	}
	switch {
	case fresh > 0:
		return "retried new id"
	case same > 0:
		return fmt.Sprintf("retried same id ×%d", same)
	case reconciled:
		return "reconciled (getUserCoupons)"
	}
	return "gave up"
}
