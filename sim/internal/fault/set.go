package fault

import (
	"fmt"
	"sync"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// More action kinds. Each endpoint renders them in its own shape; a rule
// whose endpoint has no such shape is refused (Shown, Check).
const (
	MalformedBody  = "malformed-body"  // HTTP 200 with a body cut mid-JSON
	DropConnection = "drop-connection" // close the connection without an answer
	NotEligible    = "not-eligible"    // the endpoint's not-eligible answer
	CouponError    = "coupon-error"    // a coupon error body: Action.ErrorCode and Action.Status
)

// Decider decides whether a call gets a fault. *Engine and *Set are Deciders.
type Decider interface {
	Decide(Call) (Decision, bool)
}

// Status is a rule with its counters, as the control API lists it.
type Status struct {
	Rule
	Seen  int `json:"seen"`
	Fired int `json:"fired"`
	// Spent is true once a counted rule has fired its times.
	Spent bool `json:"spent"`
	// Seq orders the rules as they were added (kept across restarts).
	Seq int64 `json:"seq"`
}

// Done reports whether the rule will fire no more: spent, or an nth
// rule past its call.
func (s Status) Done() bool { return s.Spent || s.Nth > 0 && s.Seen >= s.Nth }

// Set is an ordered, changeable list of rules (the control API's). Each
// rule keeps its own counters and its own random source seeded by
// Rule.Seed, so a probabilistic rule is reproducible whatever else fires.
type Set struct {
	mu    sync.Mutex
	rules []*Engine
	seq   map[*Engine]int64
	next  int64
	// OnFire, if set, is called (outside the set's lock) with a rule's
	// counters each time it fires (its decision settled as shown), so
	// they can be kept across restarts.
	OnFire func(Status)
	// OnRemove, if set, is called (outside the set's lock) with the id of
	// each rule disarmed, whoever disarmed it, so what a rule stood for
	// (a story applied) ends with it.
	OnRemove func(id string)
}

// Restore arms r with counters carried over from before a restart, so a
// spent one-shot rule stays spent.
// Restore them in Seq order.
func (s *Set) Restore(st Status) {
	s.Add(st.Rule)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.rules {
		if x.rules[0].ID == st.ID {
			x.rules[0].seen, x.rules[0].fired = st.Seen, st.Fired
			if st.Seq > 0 {
				s.seq[x] = st.Seq
				s.next = max(s.next, st.Seq)
			}
		}
	}
}

// Add arms r at the end of the list; a rule with the same ID is replaced
// in place, keeping its place in the order (counters restart).
func (s *Set) Add(r Rule) {
	e := NewEngine([]Rule{r}, r.Seed)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seq == nil {
		s.seq = map[*Engine]int64{}
	}
	for i, x := range s.rules {
		if x.rules[0].ID == r.ID {
			s.rules[i] = e
			s.seq[e] = s.seq[x]
			delete(s.seq, x)
			return
		}
	}
	s.next++
	s.seq[e] = s.next
	s.rules = append(s.rules, e)
}

// Arm arms r in one call: save hears what will be armed (r with fresh
// counters and the place in the order it takes) and, when it returns no
// error, r is armed in that place; an error leaves the set as it was.
// The control plane saves the rule in save, so what is armed is what
// was saved. save runs without the set's lock (it may Remove others);
// the caller serialises arming.
func (s *Set) Arm(r Rule, save func(Status) error) (Status, error) {
	st := s.planned(r)
	if err := save(st); err != nil {
		return Status{}, err
	}
	s.Restore(st)
	return st, nil
}

// planned is what Add(r) would arm, without arming it.
func (s *Set) planned(r Rule) Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.rules {
		if x.rules[0].ID == r.ID {
			return Status{Rule: r, Seq: s.seq[x]}
		}
	}
	return Status{Rule: r, Seq: s.next + 1}
}

// Remove disarms the rule with id; false if there is none.
func (s *Set) Remove(id string) bool {
	if !s.remove(id) {
		return false
	}
	if s.OnRemove != nil {
		s.OnRemove(id)
	}
	return true
}

func (s *Set) remove(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.rules {
		if x.rules[0].ID == id {
			s.rules = append(s.rules[:i], s.rules[i+1:]...)
			delete(s.seq, x)
			return true
		}
	}
	return false
}

// List returns every rule with its counters, in order.
func (s *Set) List() []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Status, 0, len(s.rules))
	for _, x := range s.rules {
		st := x.status()
		st.Seq = s.seq[x]
		out = append(out, st)
	}
	return out
}

func (e *Engine) status() Status {
	e.mu.Lock()
	defer e.mu.Unlock()
	a := e.rules[0]
	return Status{Rule: a.Rule, Seen: a.seen, Fired: a.fired, Spent: a.Times > 0 && a.fired >= a.Times}
}

// Decide returns the decision of the first rule of the set that fires.
func (s *Set) Decide(c Call) (Decision, bool) {
	if s == nil {
		return Decision{}, false
	}
	s.mu.Lock()
	var fired *Engine
	var d Decision
	for _, x := range s.rules {
		if dx, ok := x.Decide(c); ok {
			fired, d = x, dx
			break
		}
	}
	s.mu.Unlock()
	if fired == nil {
		return Decision{}, false
	}
	settle := d.settle
	d.settle = func(shown bool) {
		settle(shown)
		if shown && s.OnFire != nil {
			st := fired.status()
			s.mu.Lock()
			st.Seq = s.seq[fired]
			s.mu.Unlock()
			s.OnFire(st)
		}
	}
	return d, true
}

// CheckError is what Check refuses: Field is the rule's field at fault,
// as a JSON pointer relative to the rule ("/action/delay").
type CheckError struct {
	Field, Msg string
}

func (e *CheckError) Error() string { return e.Msg }

// MaxDelay bounds an injected delay (model.MaxDelay, which latency
// profiles share).
const MaxDelay = model.MaxDelay

// Check reports what is wrong with a rule (a *CheckError), or nil.
//
// The control API and scenario files both check rules here, so a rule is
// refused in the same words wherever it is written.
func Check(r Rule) error {
	bad := func(field, format string, a ...any) error {
		return &CheckError{Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	if _, ok := contract.ByName(r.Endpoint); !ok && r.Endpoint != "*" {
		return bad("/endpoint", "%s", NotAnOperation(r.Endpoint, "or *"))
	}
	switch r.Action.Kind {
	case HTTPStatus:
		if r.Action.Status == 0 {
			return bad("/action/status", "an %s action needs a status", r.Action.Kind)
		}
	case Delay, CommitThenDelay:
		if r.Action.Delay.D() <= 0 {
			return bad("/action/delay", "a %s action needs a positive delay", r.Action.Kind)
		}
		if r.Action.Delay.D() > MaxDelay {
			return bad("/action/delay", "delay %v is over the bound of %v (MaxDelay): a longer one would outlast the write timeout", r.Action.Delay.D(), MaxDelay)
		}
	case CouponError:
		if r.Action.ErrorCode == "" {
			return bad("/action/errorCode", "a coupon-error action needs an errorCode")
		}
	}
	if r.Probability < 0 || r.Probability > 1 {
		return bad("/probability", "probability %v is outside 0..1", r.Probability)
	}
	return checkShown(r)
}

// First consults the run-time rules (may be nil), then the scenario's
// rules: the one order every endpoint uses.
func First(runtime Decider, scenario *Engine, c Call) (Decision, bool) {
	if runtime != nil {
		if d, ok := runtime.Decide(c); ok {
			return d, true
		}
	}
	return scenario.Decide(c)
}
