package fault

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

// NotAnOperation says that name is not an operation name of the contract,
// with the nearest name when one is near (as a misspelt JSON pointer gets:
// "did you mean"), then every name, sorted, and orElse ("or *", "or a path").
// A rule or a verify with a misspelt endpoint would count nothing.
func NotAnOperation(name, orElse string) string {
	names := make([]string, 0, len(contract.Ops))
	for _, op := range contract.Ops {
		names = append(names, op.Name)
	}
	slices.Sort(names)
	msg := fmt.Sprintf("endpoint %q is not an operation name", name)
	if near, ok := nearestOperation(name, names); ok {
		msg += fmt.Sprintf(" (did you mean %s?)", near)
	}
	return msg + "; one of " + strings.Join(names, ", ") + ", " + orElse
}

// nearestOperation is schema.Nearest, or else the one name that begins
// with name (fetchCoupon: fetchCouponCode), in any case.
func nearestOperation(name string, names []string) (string, bool) {
	if near, ok := schema.Nearest(name, names); ok {
		return near, true
	}
	found := ""
	for _, n := range names {
		if len(name) >= 4 && strings.HasPrefix(strings.ToLower(n), strings.ToLower(name)) {
			if found != "" {
				return "", false
			}
			found = n
		}
	}
	return found, found != ""
}
