package report

import (
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
)

// Rules on what a publisher does after the service said no (issue 24): a
// claim retried under a new extTransactionId after an answer that no
// retry can change (CPN-3), and calls with a token past its expiry
// (TOK-4, AUTH-2).

// terminalCouponErrors are the coupon errorCodes a new claim for the same
// user and offer cannot change: stock gone, the limit reached, the user
// not eligible, the offer unknown.
var terminalCouponErrors = map[string]bool{
	"COUPON_EXHAUSTED": true, "MAX_LIMIT_REACHED": true, "NON_ELIGIBLE": true, "INVALID_OFFER": true,
}

// reasonExpired is the refusal reason of a token past its expiry.
const reasonExpired = "expired"

// credentials are the masked secret header values of an entry (bearer
// tokens, API keys), by which a call that names no channel is attributed.
func credentials(e *journal.Entry) []string {
	var out []string
	for _, v := range e.Request.Header {
		if strings.Contains(v, "~fp:") {
			out = append(out, v)
		}
	}
	return out
}
