package hotdeals

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/rewardsim/rewardsim/sim/internal/httpx"
)

// delivered refuses, on a shared box, a coupon URL whose query names no
// extTransactionId of a coupon the channel delivered for the offer: the
// URL needs no credential, so without this any job could write clicks
// into another team's channel (issue 42).
func (h *handlers) delivered(channel, offerID string, q url.Values) error {
	list, err := h.Coupons.Delivered(channel, offerID)
	if err != nil {
		return err
	}
	for _, cp := range list {
		for _, vs := range q {
			if slices.Contains(vs, cp.ExtTransactionID) {
				return nil
			}
		}
	}
	return &httpx.Error{Status: http.StatusNotFound, Body: map[string]string{"message": "no such coupon"},
		Reason: fmt.Sprintf("shared box: the coupon URL names no coupon channel %s delivered for offer %s", channel, offerID)}
}
