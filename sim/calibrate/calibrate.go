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
	n := 0
	for _, f := range r.Findings {
		if f.Determined {
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

// needs is a probe's missing precondition (a flag, writes).
type needs string

func (n needs) Error() string { return string(n) }

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
		err = needs("needs writes: this probe " + p.WritesWhat + " (run with --allow-writes)")
	default:
		err = p.run(r)
	}
	for _, name := range p.Decides {
		if f, ok := r.found[name]; ok && (f.Determined || f.Why != "") {
			continue
		}
		r.found[name] = &Finding{Switch: name, Probe: p.Name, Why: r.reason(err)}
	}
}

// reason turns a probe's error into a finding's why.
func (r *run) reason(err error) string {
	switch {
	case err == nil:
		return "answer ambiguous: the probe's answers decided nothing"
	case errors.Is(err, errBudget):
		return fmt.Sprintf("budget spent (%d calls)", r.o.Budget)
	case errors.Is(err, errStopped):
		return "not reachable: " + r.stopped
	}
	return r.mask(err.Error())
}

// set records a switch's value and the exchanges that decided it.
func (r *run) set(probe, name, value string, ev ...*Exchange) *Finding {
	f := &Finding{Switch: name, Determined: true, Value: value, Probe: probe}
	for _, e := range ev {
		if e != nil {
			f.Evidence = append(f.Evidence, e.Evidence(r.mask))
		}
	}
	r.found[name] = f
	return f
}

// unsure records why a switch stays open although its probe ran.
func (r *run) unsure(probe, name string, err error) {
	r.found[name] = &Finding{Switch: name, Probe: probe, Why: r.reason(err)}
}

func (r *run) report() *Report {
	rep := &Report{Version: 1, Budget: r.o.Budget, Calls: r.calls, AllowWrites: r.o.AllowWrites, Stopped: r.stopped, Warnings: r.warnings,
		Target: TargetRef{Rewards: r.t.RewardsURL, Bank: r.t.BankURL, Hotdeals: r.t.HotdealsURL, Channel: r.t.Channel}}
	for _, s := range Switches {
		if f, ok := r.found[s.Name]; ok {
			rep.Findings = append(rep.Findings, *f)
			continue
		}
		rep.Findings = append(rep.Findings, Finding{Switch: s.Name, Why: "not probed: " + s.NotProbed})
	}
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
