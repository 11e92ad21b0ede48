// Package fault decides whether a call gets an injected failure. A rule
// matches an endpoint, channel and virtualId, optionally only its nth
// matching call or with a seeded probability, and fires a bounded or
// standing number of times. The endpoint renders the action in its own
// contract shape; this package only decides.
package fault

import (
	"math/rand/v2"
	"sync"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Action kinds.
const (
	InternalError     = "internal-error"     // the endpoint's platform-failure answer
	SignatureMismatch = "signature-mismatch" // as if SIGN did not verify
	HTTPStatus        = "http-status"        // a bare HTTP status
	Delay             = "delay"              // answer normally, later
	// CommitThenDelay and CommitThenDrop withhold the answer of a call
	// whose effect was committed (CPN-4): see withhold.go.
	CommitThenDelay = "commit-then-delay" // commit, then answer after Delay
	CommitThenDrop  = "commit-then-drop"  // commit, then close the connection unanswered
)

// Action is what a fired rule asks the endpoint to do.
type Action struct {
	Kind   string         `yaml:"kind" json:"kind"`
	Status int            `yaml:"status,omitempty" json:"status,omitempty"`
	Delay  model.Duration `yaml:"delay,omitempty" json:"delay,omitempty"`
	// ErrorCode is the coupon errorCode of a coupon-error action.
	ErrorCode string `yaml:"errorCode,omitempty" json:"errorCode,omitempty"`
	// Message, if set, is the injected answer's text where its shape has
	// one (the coupon host's message, the signed family's ERRORSTRING, the
	// bearer 401's message); unset, the text is the one the real outcome
	// carries. X-Rewardsim-Reason says it was injected either way.
	Message string `yaml:"message,omitempty" json:"message,omitempty"`
}

// Rule says when an Action fires.
type Rule struct {
	ID          string  `yaml:"id,omitempty" json:"id,omitempty"`
	Endpoint    string  `yaml:"endpoint" json:"endpoint"`
	Channel     string  `yaml:"channel,omitempty" json:"channel,omitempty"`
	VirtualID   string  `yaml:"virtualId,omitempty" json:"virtualId,omitempty"`
	Nth         int     `yaml:"nth,omitempty" json:"nth,omitempty"`
	Times       int     `yaml:"times,omitempty" json:"times,omitempty"`
	Probability float64 `yaml:"probability,omitempty" json:"probability,omitempty"`
	Action      Action  `yaml:"action" json:"action"`
	// Seed seeds this rule's own random source in a fault.Set.
	Seed int64 `yaml:"seed,omitempty" json:"seed,omitempty"`
}

// Call describes the call being decided.
type Call struct {
	Endpoint, Channel, VirtualID string
}

type armed struct {
	Rule
	// seen counts the matching calls decided, fired the faults shown;
	// pending the faults decided whose answer is not yet given.
	seen, fired, pending int
}

// Decision is a fired rule's action, held until the answer is given: a
// rule fires only when its effect is shown (a claim the domain refused
// commits nothing, so a commit kind has nothing to withhold). Settle
// says which; until then the rule's counters do not move.
type Decision struct {
	Action Action
	settle func(shown bool)
}

// Settle confirms the decision (shown: the rule's fired counter moves)
// or hands the call back, as if the rule had not seen it: its next
// matching call gets the fault. Settle once; a zero Decision ignores it.
func (d Decision) Settle(shown bool) {
	if d.settle != nil {
		d.settle(shown)
	}
}

// Engine holds the armed rules and their counters. It is safe for
// concurrent use; decisions are serialised so nth and times are exact
// (a decision not yet settled holds its place in times).
type Engine struct {
	mu    sync.Mutex
	rules []*armed
	rng   *rand.Rand
}

// NewEngine arms rules; seed makes probabilistic rules reproducible.
func NewEngine(rules []Rule, seed int64) *Engine {
	e := &Engine{rng: rand.New(rand.NewPCG(uint64(seed), 0x5eed))}
	for _, r := range rules {
		e.rules = append(e.rules, &armed{Rule: r})
	}
	return e
}

func (r *armed) matches(c Call) bool {
	// A rule on every endpoint passes over those that cannot show its
	// kind (Shows), so it neither counts nor fires where it would be ignored.
	return (r.Endpoint == c.Endpoint || r.Endpoint == "*" && Shows(c.Endpoint, r.Action.Kind)) &&
		(r.Channel == "" || r.Channel == c.Channel) &&
		(r.VirtualID == "" || r.VirtualID == c.VirtualID)
}

// Decide returns the decision of the first rule that fires for c, to
// settle once the answer is given.
func (e *Engine) Decide(c Call) (Decision, bool) {
	if e == nil {
		return Decision{}, false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, r := range e.rules {
		if !r.matches(c) {
			continue
		}
		r.seen++
		if r.Times > 0 && r.fired+r.pending >= r.Times {
			continue
		}
		if r.Nth > 0 && r.seen != r.Nth {
			continue
		}
		if r.Probability > 0 && e.rng.Float64() >= r.Probability {
			continue
		}
		r.pending++
		return Decision{Action: r.Action, settle: func(shown bool) { e.settle(r, shown) }}, true
	}
	return Decision{}, false
}

func (e *Engine) settle(r *armed, shown bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r.pending--
	if shown {
		r.fired++
	} else {
		r.seen--
	}
}
