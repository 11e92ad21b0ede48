package fault

import (
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Every operation of the contract table says what it can show, and a rule
// it cannot show is refused in words naming the endpoint and its kinds.
func TestShown_everyOperationAndKind(t *testing.T) {
	for _, op := range contract.Ops {
		if _, ok := shown[op.Name]; !ok {
			t.Errorf("operation %s has no row in fault.shown", op.Name)
		}
		for _, kind := range Kinds {
			r := Rule{Endpoint: op.Name, Action: Action{Kind: kind, Status: 503, Delay: model.Duration(1), ErrorCode: "COUPON_EXHAUSTED"}}
			err := Check(r)
			if Shows(op.Name, kind) != (err == nil) {
				t.Errorf("%s/%s: shows %v, Check says %v", op.Name, kind, Shows(op.Name, kind), err)
			}
			if err != nil && (!strings.Contains(err.Error(), "endpoint "+op.Name+" cannot show") || !strings.Contains(err.Error(), "it can show")) {
				t.Errorf("%s/%s: refusal %q names neither the endpoint nor what it can show", op.Name, kind, err)
			}
		}
	}
	if err := Check(Rule{Endpoint: "*", Action: Action{Kind: CommitThenDrop}}); err != nil {
		t.Errorf("a commit-then-drop rule on every endpoint is refused: %v", err)
	}
}

// A rule on every endpoint passes over the endpoints that cannot show its
// kind: it neither counts their calls nor fires on them.
func TestDecide_wildcardSkipsEndpointsThatCannotShow(t *testing.T) {
	e := NewEngine([]Rule{{Endpoint: "*", Nth: 2, Action: Action{Kind: CommitThenDrop}}}, 1)
	calls := []Call{{Endpoint: contract.OpAuthToken}, {Endpoint: contract.OpFetchCoupon}, {Endpoint: contract.OpRegisterEvent}, {Endpoint: contract.OpFetchCoupon}}
	got := fires(e, calls)
	want := []bool{false, false, false, true}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("fired %v, want %v", got, want)
		}
	}
}
