package fault

import (
	"slices"
	"testing"
)

func fires(e *Engine, calls []Call) []bool {
	out := make([]bool, len(calls))
	for i, c := range calls {
		_, out[i] = e.Decide(c)
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
