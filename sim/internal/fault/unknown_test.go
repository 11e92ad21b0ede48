package fault

import (
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
)

// Issue 51: an unknown operation name is told with the nearest name (as a
// misspelt JSON pointer is) and the whole list of names.
func TestNotAnOperation(t *testing.T) {
	for _, c := range []struct{ name, near string }{
		{"fetchCoupon", "fetchCouponCode"},     // the start of one name
		{"fetchcouponcode", "fetchCouponCode"}, // another case
		{"GetRewrd", "GetReward"},              // an edit away
		{"Get", ""},                            // the start of several: no guess
		{"NoSuchOperation", ""},                // nothing near
	} {
		msg := NotAnOperation(c.name, "or *")
		if got := strings.Contains(msg, "did you mean"); got != (c.near != "") || c.near != "" && !strings.Contains(msg, "(did you mean "+c.near+"?)") {
			t.Errorf("%s: %s; want did you mean %q", c.name, msg, c.near)
		}
		for _, op := range contract.Ops {
			if !strings.Contains(msg, " "+op.Name+",") {
				t.Errorf("%s: the list of names lacks %s: %s", c.name, op.Name, msg)
			}
		}
		if !strings.HasSuffix(msg, ", or *") {
			t.Errorf("%s: %s does not end with its orElse", c.name, msg)
		}
	}
}
