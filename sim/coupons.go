package sim

import "time"

// couponInvalidator lets a fired COUPON_INVALIDATED push mark the offer's
// delivered coupons (WH-4); it is the default Options.Control.Invalidator.
type couponInvalidator struct{ s *Sim }

func (ci couponInvalidator) InvalidateOffer(channel, offerID string, at time.Time, reason string) error {
	_, err := ci.s.store.InvalidateOffer(channel, offerID, at, reason)
	return err
}
