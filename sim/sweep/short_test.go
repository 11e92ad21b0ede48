package sweep

import (
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

// The matrix names a column for every fault kind of the one table
// (fault.Kinds) and every coupon errorCode of the schema: a kind added
// there without a column name fails here.
func TestShort_namesEveryKind(t *testing.T) {
	for _, k := range fault.Kinds {
		if k == fault.CouponError {
			for _, code := range schema.FaultErrorCodes() {
				if short[k+" "+code] == "" {
					t.Errorf("no matrix column name for %s %s", k, code)
				}
			}
			continue
		}
		if short[k] == "" {
			t.Errorf("no matrix column name for %s", k)
		}
	}
}
