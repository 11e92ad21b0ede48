package frontdoor

import (
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
)

// The door refuses a row of the contract table it cannot open or whose
// failures it cannot write, so sim.New fails instead of a request.
func TestCovers(t *testing.T) {
	open := func(echo.Context, contract.Op, []byte, error, any) (*Call, error) { return nil, nil }
	render := func(echo.Context, *Call, fault.Action) (bool, error) { return false, nil }
	d := &Door{Openers: map[contract.Auth]Opener{contract.APIKey: open}, Dialects: map[contract.Dialect]Dialect{contract.Coupon: render}}
	if err := d.Covers([]contract.Op{{Name: "a", Auth: contract.APIKey, Dialect: contract.Coupon}, {Name: "na", Dialect: contract.NotAvailable}}); err != nil {
		t.Fatalf("covered ops refused: %v", err)
	}
	for _, op := range []contract.Op{{Name: "noOpener", Auth: contract.BearerRef, Dialect: contract.Coupon}, {Name: "noDialect", Auth: contract.APIKey, Dialect: contract.SDK}} {
		if err := d.Covers([]contract.Op{op}); err == nil || !strings.Contains(err.Error(), op.Name) {
			t.Errorf("%s: %v, want a refusal naming it", op.Name, err)
		}
	}
	if err := (&Door{}).Covers(contract.Ops); err == nil {
		t.Error("an empty door covers the contract table")
	}
}
