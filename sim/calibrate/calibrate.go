// Package calibrate learns a real service's readings of the points the
// contract leaves open (the behaviour switches of a scenario) by calling
// it the way a publisher would, within a budget of calls. Each probe is
// the fewest calls that decide its switches; a probe that would issue a
// card, claim a coupon or burn stock runs only when writes are allowed.
// What it finds is written as a table, a scenario overlay or JSON, and
// compared with a scenario to tell a team the vendor drifted.
package calibrate

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/outbound"
)

// Target is the service calibrated and the publisher calibrate acts as.
type Target struct {
	RewardsURL, BankURL, HotdealsURL string
	Channel                          string // bName / channelName
	ChannelID                        string // CHANNELID; the channel's name when empty
	Key                              *rsa.PrivateKey
	ServiceKey                       *rsa.PublicKey // verifies signed answers
	AppKey, SecKey                   string
	// Offers are coupon offer ids the write probes claim (the first; a
	// second, when given, for the cross-offer probe).
	Offers []string
	// Campaign is a campaignId of GetScratchCardForBank.
	Campaign string
	// Trigger is a triggerEventType that earns a card (the card probe).
	Trigger string
	// VirtualIDPrefix starts every virtualId calibrate makes up.
	VirtualIDPrefix string
	// Location reads an expireDate without an offset (datetime-ms).
	Location *time.Location
	HTTP     *http.Client
}

// Options bound a run.
type Options struct {
	// Budget is the most calls made.
	Budget int
	// AllowWrites permits the probes that issue cards, claim coupons or burn stock.
	AllowWrites bool
	// RunID keeps the ids of one run apart from another's (virtualIds,
	// extTransactionIds); a fresh one when empty.
	RunID string
	// Now is the local clock (time.Now when nil).
	Now func() time.Time
	// LatencySamples is how many calls of each endpoint the probes call
	// are made after them, for its latency: the read-only calls, and with
	// AllowWrites the write probes' own (at most MaxLatencySamples; 0:
	// none beyond the probes' own).
	LatencySamples int
	// Wait bounds how long a probe that must wait something out (a
	// session's lifetime) may watch it; 0 runs no such probe.
	Wait time.Duration
}

// DefaultBudget is Options.Budget's default.
const DefaultBudget = 80

// Finding is what calibrate learnt of one switch.
type Finding struct {
	Switch     string   `json:"switch"`
	Determined bool     `json:"determined"`
	Value      string   `json:"value,omitempty"`
	Why        string   `json:"why,omitempty"`
	Probe      string   `json:"probe,omitempty"`
	Evidence   []string `json:"evidence,omitempty"`
	// Note adds what the value cannot say (readings that answer alike).
	Note string `json:"note,omitempty"`
	// Cause is Why as a word a program reads (one of Causes).
	Cause string `json:"cause,omitempty"`
	// Candidates are the readings a probe narrowed a switch to when no
	// answer a publisher sees tells them apart.
	Candidates []string `json:"candidates,omitempty"`
	// AtLeast is a duration the switch's value is longer than (a session still
	// open when --wait ran out).
	AtLeast string `json:"atLeast,omitempty"`
}

// Why a switch is not determined, as Finding.Cause says it.
const (
	CauseWrites       = "needs-writes"
	CauseFlag         = "needs-flag"
	CauseWait         = "needs-wait"
	CauseBudget       = "budget-spent"
	CauseAmbiguous    = "ambiguous"
	CauseUnreachable  = "not-reachable"
	CauseUnobservable = "not-observable"
)

// Causes is every cause, in the order a verdict counts them; each with
// the words a verdict line counts it in.
var Causes = []struct{ Cause, Counted string }{
	{CauseWrites, "need --allow-writes"},
	{CauseFlag, "need a flag (--offer, --campaign, --key)"},
	{CauseWait, "need waiting (--wait)"},
	{CauseBudget, "budget spent"},
	{CauseAmbiguous, "answered ambiguously"},
	{CauseUnreachable, "not reached"},
	{CauseUnobservable, "not observable from a publisher's side"},
}

// Report is one run's result.
type Report struct {
	Version     int       `json:"version"`
	Target      TargetRef `json:"target"`
	Budget      int       `json:"budget"`
	Calls       int       `json:"calls"`
	AllowWrites bool      `json:"allowWrites"`
	// Stopped says why the run stopped early (a transport failure, a
	// burst of 5xx answers, a target that does not speak the API).
	Stopped  string    `json:"stopped,omitempty"`
	Findings []Finding `json:"switches"`
	// Warnings are what the run noticed besides the switches (an answer
	// whose SIGN --service-cert does not verify).
	Warnings []string `json:"warnings,omitempty"`
	Drift    []Drift  `json:"drift,omitempty"`
	// Against is the comparison with a scenario (--against).
	Against *Check `json:"against,omitempty"`
	// Latency is each endpoint's measured answer time, with the samples
	// it rests on.
	Latency []LatencyFigure `json:"latency,omitempty"`
}

// TargetRef names the target in a report (no credentials).
type TargetRef struct {
	Rewards  string `json:"rewards"`
	Bank     string `json:"bank"`
	Hotdeals string `json:"hotdeals"`
	Channel  string `json:"channel"`
}

// Determined counts the switches decided.
func (r *Report) Determined() int {
	return count(r.Findings, func(f Finding) bool { return f.Determined })
}

// Open counts the switches left open that some run could have decided
// (with writes, a flag, a wait, more budget, a target that answers):
// the comparison's unchecked ones when there is one, else those not
// determined; never the ones no publisher can observe.
func (r *Report) Open() int {
	if r.Against != nil {
		return r.Against.Checkable()
	}
	return count(r.Findings, func(f Finding) bool { return !f.Determined && f.Cause != CauseUnobservable })
}

func count[T any](xs []T, keep func(T) bool) int {
	n := 0
	for _, x := range xs {
		if keep(x) {
			n++
		}
	}
	return n
}

// Finding returns the finding of a switch.
func (r *Report) Finding(name string) (Finding, bool) {
	for _, f := range r.Findings {
		if f.Switch == name {
			return f, true
		}
	}
	return Finding{}, false
}

var (
	errBudget  = errors.New("budget spent")
	errStopped = errors.New("stopped")
)

// needs is a probe's missing precondition (a flag, writes, a wait).
type needs struct{ cause, why string }

func (n needs) Error() string { return n.why }

func needsFlag(why string) error { return needs{CauseFlag, why} }

// ambiguous is an answer no reading explains.
func ambiguous(format string, a ...any) error {
	return fmt.Errorf("answer ambiguous: "+format, a...)
}

// run is one calibration in progress.
type run struct {
	ctx   context.Context
	t     Target
	o     Options
	calls int
	// burst counts 5xx answers in a row; nonJSON the answers that were
	// not JSON while no answer was.
	burst, nonJSON int
	anyJSON        bool
	stopped        string
	found          map[string]*Finding
	secrets        []string
	refToken       string
	refEx          *Exchange
	refErr         error
	warnings       []string
	userTokens     map[string]userToken
	readUser       string
	catalogue      map[string]int
	catalogueIDs   []string
	seq            int
	latency        map[string][]time.Duration // endpoint -> answer times
	sampled        map[string]string          // endpoint -> what its latency samples called
}

type userToken struct {
	token string
	ex    *Exchange
	err   error
}

// burstLimit 5xx answers in a row stop the run; so do nonsenseLimit
// answers that are not JSON before any is.
const (
	burstLimit    = 3
	nonsenseLimit = 3
)

// Run calibrates t: the probes of the plan, in order, within the budget.
func Run(ctx context.Context, t Target, o Options) *Report {
	r := newRun(ctx, t, o)
	for _, p := range Plan() {
		r.runProbe(p)
	}
	r.sampleLatency(o.LatencySamples)
	return r.report()
}

func newRun(ctx context.Context, t Target, o Options) *run {
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.RunID == "" {
		o.RunID = strconv.FormatInt(o.Now().UnixNano()%(36*36*36*36*36*36), 36)
	}
	if t.ChannelID == "" {
		t.ChannelID = t.Channel
	}
	if t.Trigger == "" {
		t.Trigger = "UPI"
	}
	if t.VirtualIDPrefix == "" {
		t.VirtualIDPrefix = "CAL-"
	}
	if t.Location == nil {
		t.Location = time.FixedZone("+05:30", 5*3600+1800)
	}
	if t.HTTP == nil {
		t.HTTP = outbound.Client(20 * time.Second) // no redirect to another host
	}
	r := &run{ctx: ctx, t: t, o: o, found: map[string]*Finding{}, userTokens: map[string]userToken{}}
	r.secrets = append(r.secrets, t.AppKey, t.SecKey)
	return r
}

// runProbe runs p, or says why it cannot; a switch it left open takes
// the reason of its error.
func (r *run) runProbe(p Probe) {
	var err error
	switch {
	case r.stopped != "":
		err = errStopped
	case p.Writes && !r.o.AllowWrites:
		err = needs{CauseWrites, "needs writes: this probe " + p.WritesWhat + " (run with --allow-writes)"}
	case p.Waits != "" && r.o.Wait <= 0:
		err = needs{CauseWait, "needs waiting: " + p.Waits + "; run with --wait D to watch for up to D (--wait 35m, say)"}
	default:
		err = p.run(r)
	}
	for _, name := range p.Decides {
		if f, ok := r.found[name]; ok && (f.Determined || f.Why != "") {
			continue
		}
		r.unsure(p.Name, name, err)
	}
}

// reason turns a probe's error into a finding's cause and why.
func (r *run) reason(err error) (cause, why string) {
	var n needs
	switch {
	case err == nil:
		return CauseAmbiguous, "answer ambiguous: the probe's answers decided nothing"
	case errors.Is(err, errBudget):
		return CauseBudget, fmt.Sprintf("budget spent (%d calls)", r.o.Budget)
	case errors.Is(err, errStopped):
		return CauseUnreachable, "not reachable: " + r.stopped
	case errors.As(err, &n):
		return n.cause, r.mask(n.why)
	}
	return CauseAmbiguous, r.mask(err.Error())
}

// set records a switch's value and the exchanges that decided it.
func (r *run) set(probe, name, value string, ev ...*Exchange) *Finding {
	f := &Finding{Switch: name, Determined: true, Value: value, Probe: probe, Evidence: r.evidence(ev)}
	r.found[name] = f
	return f
}

// unsure records why a switch stays open although its probe ran.
func (r *run) unsure(probe, name string, err error) *Finding {
	cause, why := r.reason(err)
	f := &Finding{Switch: name, Probe: probe, Cause: cause, Why: why}
	r.found[name] = f
	return f
}

func (r *run) report() *Report {
	rep := &Report{Version: 1, Budget: r.o.Budget, Calls: r.calls, AllowWrites: r.o.AllowWrites, Stopped: r.stopped, Warnings: r.warnings,
		Target: TargetRef{Rewards: r.t.RewardsURL, Bank: r.t.BankURL, Hotdeals: r.t.HotdealsURL, Channel: r.t.Channel}}
	for _, s := range Switches {
		if f, ok := r.found[s.Name]; ok {
			rep.Findings = append(rep.Findings, *f)
			continue
		}
		rep.Findings = append(rep.Findings, Finding{Switch: s.Name, Cause: CauseUnobservable, Why: "not observable from a publisher's side: " + s.Unobservable})
	}
	rep.Latency = r.latencyFigures()
	if rep.Stopped == "" && rep.Determined() == 0 {
		rep.Stopped = "no switch determined: the target answered no probe the way this service's API does"
	}
	return rep
}

// id makes a fresh id of this run: prefix, run id, a sequence number.
func (r *run) id(kind string) string {
	r.seq++
	return kind + r.o.RunID + strconv.Itoa(r.seq)
}

// user makes a fresh virtualId of this run.
func (r *run) user() string { return r.t.VirtualIDPrefix + r.id("U") }

// txn makes a fresh extTransactionId (alphanumeric, as SDK issuance asks).
func (r *run) txn() string { return "CAL" + strings.ToUpper(r.id("X")) }
