package sim

import (
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
)

// New refuses to start when the contract table names an operation that no
// host serves: routes come from the table, and the table cannot outgrow
// the handlers unnoticed.
func TestNew_refusesAnUnroutedOperation(t *testing.T) {
	saved := contractOps
	t.Cleanup(func() { contractOps = saved })
	contractOps = append([]contract.Op{{
		Name: "ghostOperation", Host: contract.Rewards, Method: "POST", Path: "/api/ghost", Auth: contract.SignedEnvelope, Dialect: contract.BareFailure,
	}}, saved...)
	dir := t.TempDir()
	s, err := New(Options{DataDir: dir})
	if err == nil {
		s.Close()
		t.Fatal("New started with an operation no host serves")
	}
	if !strings.Contains(err.Error(), "ghostOperation") || !strings.Contains(err.Error(), "has no handler") {
		t.Fatalf("err = %v, want it to name the unrouted operation", err)
	}
	// The refusal released the store: a simulator opens on the same folder.
	contractOps = saved
	s, err = New(Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

// The other direction: a handler the table does not list is refused too,
// as is an operation routed on the wrong host. The real table binds whole.
func TestBindOps_tableAndHandlersAgree(t *testing.T) {
	noop := func(echo.Context, contract.Op) error { return nil }
	ops := []contract.Op{
		{Name: "a", Host: contract.Rewards, Method: "POST", Path: "/a"},
		{Name: "b", Host: contract.Bank, Method: "POST", Path: "/b"},
	}
	cases := []struct {
		name  string
		hosts map[contract.Host]httpx.OpHandlers
		want  string
	}{
		{"every operation served", map[contract.Host]httpx.OpHandlers{contract.Rewards: {"a": noop}, contract.Bank: {"b": noop}}, ""},
		{"operation unserved", map[contract.Host]httpx.OpHandlers{contract.Rewards: {"a": noop}}, "contract operation b (POST /b on the bank host) has no handler"},
		{"handler without operation", map[contract.Host]httpx.OpHandlers{contract.Rewards: {"a": noop, "c": noop}, contract.Bank: {"b": noop}}, "the rewards host has a handler for c, which is no operation of its"},
		{"wrong host", map[contract.Host]httpx.OpHandlers{contract.Rewards: {"a": noop, "b": noop}}, "the rewards host has a handler for b"},
	}
	for _, c := range cases {
		rs, err := bindOps(ops, c.hosts)
		if c.want == "" {
			if err != nil || len(rs) != len(ops) {
				t.Errorf("%s: %d routes, err %v", c.name, len(rs), err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one containing %q", c.name, err, c.want)
		}
	}
}
