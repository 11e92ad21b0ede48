package sim

import (
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/coupons"
)

// coupons is the coupon domain over the simulator's store and clock.
func (s *Sim) coupons() *coupons.Service {
	return &coupons.Service{Store: s.store, Clock: s.clock}
}

// couponInvalidator lets a fired COUPON_INVALIDATED push mark the offer's
// delivered coupons (WH-4); it is the default Options.Webhooks.Invalidator.
type couponInvalidator struct{ s *Sim }

func (ci couponInvalidator) InvalidateOffer(channel, offerID string, at time.Time, reason string) error {
	_, err := ci.s.coupons().Invalidate(channel, offerID, at, reason)
	return err
}
