// Package sweep runs a publisher's own test command once per failure the
// simulator can show on the endpoints that command calls, each run on
// channels of its own, and grades what the publisher's service did
// (`rewardsim sweep`, docs/sweep.md). It talks to the simulator only
// through its control API (sim/controlapi).
package sweep

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// When a row's fault fires.
const (
	First = "first" // on the first matching call only
	Every = "every" // on every matching call
	Both  = "both"  // a row of each
)

// CouponCodes are the coupon host's error codes (CPN-3): a coupon-error
// row each.
var CouponCodes = []string{"INVALID_REQUEST", "UNAUTHORIZED", "NON_ELIGIBLE", "INVALID_OFFER",
	"COUPON_EXHAUSTED", "DUPLICATE_TRANSACTION", "MAX_LIMIT_REACHED", "INTERNAL_ERROR"}

// sweptStatus is the status of the http-status row: the gateway failure
// a service most often meets in front of the real one.
const sweptStatus = http.StatusServiceUnavailable

// Row is one run of the sweep: one fault on one endpoint.
type Row struct {
	// ID names the row in files and reports: endpoint/kind/when.
	ID       string        `json:"id"`
	Endpoint string        `json:"endpoint"`
	Kind     string        `json:"kind"` // the matrix column: the fault kind, a coupon-error's code after a space
	When     string        `json:"when"`
	Action   *fault.Action `json:"action,omitempty"` // nil for the baseline
}

// Plan lists the rows: each endpoint of called, or of only when given
// (so a row the baseline never reached is still shown, as not-reached),
// in contract order × each kind it can show (fault.Shown, coupon-error
// once per code) × when, filtered by kinds (empty: all).
func Plan(called, only, kinds []string, when string, delay time.Duration) []Row {
	var rows []Row
	if len(only) > 0 {
		called = only
	}
	for _, op := range contract.Ops {
		if !slices.Contains(called, op.Name) {
			continue
		}
		for _, a := range actions(op.Name, delay) {
			col := Column(a)
			if len(kinds) > 0 && !slices.Contains(kinds, a.Kind) && !slices.Contains(kinds, col) {
				continue
			}
			for _, w := range whens(when) {
				rows = append(rows, Row{ID: op.Name + "/" + strings.ReplaceAll(col, " ", ":") + "/" + w,
					Endpoint: op.Name, Kind: col, When: w, Action: &a})
			}
		}
	}
	return rows
}

// Column is an action's matrix column.
func Column(a fault.Action) string {
	if a.Kind == fault.CouponError {
		return a.Kind + " " + a.ErrorCode
	}
	return a.Kind
}

func whens(when string) []string {
	if when == Both {
		return []string{First, Every}
	}
	return []string{when}
}

// actions are the faults endpoint can show, one per row.
func actions(endpoint string, delay time.Duration) []fault.Action {
	var out []fault.Action
	for _, k := range fault.Shown(endpoint) {
		switch k {
		case fault.CouponError:
			for _, code := range CouponCodes {
				out = append(out, fault.Action{Kind: k, ErrorCode: code})
			}
		case fault.HTTPStatus:
			out = append(out, fault.Action{Kind: k, Status: sweptStatus})
		case fault.Delay, fault.CommitThenDelay:
			out = append(out, fault.Action{Kind: k, Delay: model.Duration(delay)})
		default:
			out = append(out, fault.Action{Kind: k})
		}
	}
	return out
}

// CheckFilters refuses an endpoint or kind the simulator does not know,
// or a when other than first, every or both: the sweep's own bad input.
func CheckFilters(only, kinds []string, when string) error {
	for _, e := range only {
		if _, ok := contract.ByName(e); !ok {
			names := make([]string, 0, len(contract.Ops))
			for _, op := range contract.Ops {
				names = append(names, op.Name)
			}
			return fmt.Errorf("--only: %q is not an endpoint (one of %s)", e, strings.Join(names, ", "))
		}
		if len(fault.Shown(e)) == 0 {
			return fmt.Errorf("--only: %s shows no fault: it does not exist in the real service", e)
		}
	}
	for _, k := range kinds {
		kind, code, _ := strings.Cut(k, ":")
		if !slices.Contains(fault.Kinds, kind) {
			return fmt.Errorf("--kinds: %q is not a fault kind (one of %s; coupon-error:CODE for one code)", k, strings.Join(fault.Kinds, ", "))
		}
		if code != "" && (kind != fault.CouponError || !slices.Contains(CouponCodes, code)) {
			return fmt.Errorf("--kinds: %q: only coupon-error takes a code, one of %s", k, strings.Join(CouponCodes, ", "))
		}
	}
	if when != First && when != Every && when != Both {
		return fmt.Errorf("--when: %q is not first, every or both", when)
	}
	return nil
}

// KindFilter turns --kinds values (coupon-error:CODE) into matrix columns.
func KindFilter(kinds []string) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = strings.Replace(k, ":", " ", 1)
	}
	return out
}
