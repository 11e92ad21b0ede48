package story

import (
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/fault"
)

// Every embedded story loads (its rules pass the checks a scenario's
// rules pass) and says what it does; the eight are there.
func TestStoriesLoad(t *testing.T) {
	got := map[string]bool{}
	for _, s := range All() {
		if s.Description == "" || len(s.Faults) == 0 && s.Advance == 0 && s.Storm == nil {
			t.Errorf("story %s does nothing or says nothing", s.Name)
		}
		got[s.Name] = true
	}
	for _, n := range []string{"stock-out", "uat-down", "timeout-after-commit", "token-expires-now", "not-eligible", "signature-mismatch", "webhook-storm", "slow-partner"} {
		if !got[n] {
			t.Errorf("no story %s", n)
		}
	}
}

// A rule's id says its story and channel; the book knows restored
// stories again from them, and clear returns what to put back.
func TestBook(t *testing.T) {
	id := RuleID("stock-out", "CI-42", 1)
	if n, ch, ok := ParseRuleID(id); !ok || n != "stock-out" || ch != "CI-42" {
		t.Fatalf("ParseRuleID(%s) = %s %s %v", id, n, ch, ok)
	}
	if _, _, ok := ParseRuleID("f-abc"); ok {
		t.Fatal("a rule of no story parsed as one")
	}
	b := NewBook([]fault.Status{{Rule: fault.Rule{ID: id}}, {Rule: fault.Rule{ID: "f-x"}}})
	if b.On("CI-42") != "stock-out" || b.On("DEMOBANK") != "" {
		t.Fatalf("restored book: %v", b.All())
	}
	b.Add("CI-42", "token-expires-now", &ClockBefore{Own: true, By: 31})
	b.Add("CI-42", "token-expires-now", &ClockBefore{Own: false, By: 31})
	names, cb := b.Clear("CI-42")
	if len(names) != 2 || cb == nil || !cb.Own || cb.By != 62 {
		t.Fatalf("clear: %v %+v", names, cb)
	}
	if len(b.All()) != 0 {
		t.Fatalf("after clear: %v", b.All())
	}
}
