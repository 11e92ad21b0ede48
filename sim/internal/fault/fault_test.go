package fault

import (
	"slices"
	"testing"
)

func fires(e *Engine, calls []Call) []bool {
	out := make([]bool, len(calls))
	for i, c := range calls {
		var d Decision
		d, out[i] = e.Decide(c)
		d.Settle(true)
	}
	return out
}

// clause: ENV-5 (faults that inject Internal Error! are matched exactly)
func TestDecide(t *testing.T) {
	a := Call{Endpoint: "GenerateSessionInfoV2", Channel: "DEMOBANK", VirtualID: "VU-1"}
	b := Call{Endpoint: "GenerateSessionInfoV2", Channel: "DEMOBANK", VirtualID: "VU-2"}
	o := Call{Endpoint: "GetAuthToken", Channel: "DEMOBANK", VirtualID: "VU-1"}
	act := Action{Kind: InternalError}
	cases := []struct {
		name  string
		rule  Rule
		calls []Call
		want  []bool
	}{
		{"standing rule on one endpoint", Rule{Endpoint: a.Endpoint, Action: act}, []Call{a, o, b, a}, []bool{true, false, true, true}},
		{"any endpoint", Rule{Endpoint: "*", Action: act}, []Call{a, o}, []bool{true, true}},
		{"one user", Rule{Endpoint: a.Endpoint, VirtualID: "VU-2", Action: act}, []Call{a, b, a, b}, []bool{false, true, false, true}},
		{"another channel never matches", Rule{Endpoint: "*", Channel: "OTHER", Action: act}, []Call{a, o}, []bool{false, false}},
		{"nth matching call only", Rule{Endpoint: a.Endpoint, Nth: 3, Action: act}, []Call{a, o, b, a, a}, []bool{false, false, false, true, false}},
		{"counted", Rule{Endpoint: "*", Times: 2, Action: act}, []Call{a, o, b, a}, []bool{true, true, false, false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := fires(NewEngine([]Rule{c.rule}, 1), c.calls); !slices.Equal(got, c.want) {
				t.Fatalf("fired %v, want %v", got, c.want)
			}
		})
	}
}

func TestProbabilityIsSeeded(t *testing.T) {
	calls := make([]Call, 400)
	for i := range calls {
		calls[i] = Call{Endpoint: "x"}
	}
	rule := []Rule{{Endpoint: "x", Probability: 0.25, Action: Action{Kind: InternalError}}}
	one, again, other := fires(NewEngine(rule, 42), calls), fires(NewEngine(rule, 42), calls), fires(NewEngine(rule, 43), calls)
	if !slices.Equal(one, again) {
		t.Fatal("the same seed gave different sequences")
	}
	if slices.Equal(one, other) {
		t.Fatal("different seeds gave the same sequence")
	}
	n := 0
	for _, f := range one {
		if f {
			n++
		}
	}
	if n < 60 || n > 140 { // 100 expected; far outside means the probability is ignored
		t.Fatalf("fired %d of 400 at p=0.25", n)
	}
}

// A decision counts only once settled as shown; one handed back leaves the
// rule as if it had not seen the call, and an unsettled one holds its
// place in times (a one-shot rule fires for one call at a time).
func TestDecision_settle(t *testing.T) {
	c := Call{Endpoint: "x"}
	status := func(s *Set) Status { return s.List()[0] }
	cases := []struct {
		name  string
		rule  Rule
		shown []bool // how each call's decision settles, in order
		fired int
		spent bool
	}{
		{"one-shot handed back, then shown", Rule{Times: 1}, []bool{false, true}, 1, true},
		{"one-shot handed back twice", Rule{Times: 1}, []bool{false, false}, 0, false},
		{"nth: the handed-back call does not count", Rule{Nth: 2}, []bool{false, true}, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var saved []Status
			s := &Set{OnFire: func(st Status) { saved = append(saved, st) }}
			tc.rule.ID, tc.rule.Endpoint, tc.rule.Action = "r", "x", Action{Kind: InternalError}
			s.Add(tc.rule)
			fired := 0
			for _, shown := range tc.shown {
				for tries := 0; ; tries++ {
					d, ok := s.Decide(c)
					if tries == 10 {
						t.Fatal("the rule no longer fires")
					}
					if !ok {
						continue // not this call (nth): the next one
					}
					d.Settle(shown)
					break
				}
				if shown {
					fired++
				}
			}
			st := status(s)
			if st.Fired != tc.fired || st.Spent != tc.spent || len(saved) != fired {
				t.Fatalf("fired %d spent %v saved %d times, want fired %d spent %v saved %d", st.Fired, st.Spent, len(saved), tc.fired, tc.spent, fired)
			}
		})
	}
	e := NewEngine([]Rule{{Endpoint: "x", Times: 1, Action: Action{Kind: InternalError}}}, 1)
	d, ok := e.Decide(c)
	if _, again := e.Decide(c); !ok || again {
		t.Fatalf("a one-shot rule fired for a second call while the first was unsettled (%v, %v)", ok, again)
	}
	d.Settle(false)
	if _, ok := e.Decide(c); !ok {
		t.Fatal("a one-shot rule handed back does not fire for the next call")
	}
}
