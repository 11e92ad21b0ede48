package fault

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
)

// Kinds lists every action kind, in the order the docs give them.
var Kinds = []string{InternalError, SignatureMismatch, NotEligible, CouponError, HTTPStatus, Delay,
	DropConnection, MalformedBody, CommitThenDelay, CommitThenDrop, AnswerSignOtherBytes, AnswerSignOtherKey, AnswerSignAbsent}

// generic are the kinds every endpoint that decides faults can show: the
// transport ones (inject.Generic) and the platform failure, the
// authentication failure and the cut body in the endpoint's own shape.
var generic = []string{InternalError, SignatureMismatch, HTTPStatus, Delay, DropConnection, MalformedBody}

// signed are the kinds of an endpoint whose answer is a signed envelope:
// the generic ones and the three that mis-sign it.
var signed = with(AnswerSignOtherBytes, AnswerSignOtherKey, AnswerSignAbsent)

// shown is what each operation can show beyond the generic kinds. An
// endpoint's not-eligible is its normal not-eligible answer; coupon-error
// and the commit kinds need the coupon host's error body and a claim to
// commit; the mis-signing kinds a signed answer. RegisterEvent and ExitEvent do not exist in the real service
// (NA-1): their 404 is the whole answer, so they show no fault.
var shown = map[string][]string{
	contract.OpReferenceToken:  signed,
	contract.OpAuthToken:       signed,
	contract.OpSession:         signed,
	contract.OpGetReward:       with(NotEligible),
	contract.OpFetchRewardInfo: signed,
	contract.OpListCards:       generic,
	contract.OpBankCard:        append(slices.Clone(signed), NotEligible),
	contract.OpSDKIssueAndroid: with(NotEligible),
	contract.OpSDKIssueIOS:     with(NotEligible),
	contract.OpCatalogue:       with(NotEligible, CouponError),
	contract.OpUserCoupons:     with(NotEligible, CouponError),
	contract.OpFetchCoupon:     with(NotEligible, CouponError, CommitThenDelay, CommitThenDrop),
	contract.OpRegisterEvent:   nil,
	contract.OpExitEvent:       nil,
}

func with(kinds ...string) []string { return append(slices.Clone(generic), kinds...) }

// Shown lists the kinds endpoint can show, in Kinds order.
func Shown(endpoint string) []string {
	var out []string
	for _, k := range Kinds {
		if slices.Contains(shown[endpoint], k) {
			out = append(out, k)
		}
	}
	return out
}

// Shows reports whether endpoint can show a fault of kind.
func Shows(endpoint, kind string) bool { return slices.Contains(shown[endpoint], kind) }

// checkShown refuses a rule whose action its endpoint cannot show, so an
// accepted rule is never silently ignored. A rule on every endpoint ("*")
// fires on those that show its kind; it needs at least one.
func checkShown(r Rule) error {
	if r.Endpoint == "*" {
		for _, op := range contract.Ops {
			if Shows(op.Name, r.Action.Kind) {
				return nil
			}
		}
		return &CheckError{Field: "/action/kind", Msg: fmt.Sprintf("no endpoint can show a %s fault (kinds: %s)", r.Action.Kind, strings.Join(Kinds, ", "))}
	}
	if Shows(r.Endpoint, r.Action.Kind) {
		return nil
	}
	can := "no injected fault: it does not exist in the real service and answers 404 (NA-1)"
	if k := Shown(r.Endpoint); len(k) > 0 {
		can = strings.Join(k, ", ")
	}
	return &CheckError{Field: "/action/kind", Msg: fmt.Sprintf("endpoint %s cannot show a %s fault; it can show %s", r.Endpoint, r.Action.Kind, can)}
}
