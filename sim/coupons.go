package sim

import (
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/coupons"
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// CouponClick is one recorded follow of a coupon's click-and-redirect URL (CPN-8).
type CouponClick = model.CouponClick

// coupons is the coupon domain over the simulator's store and clock.
func (s *Sim) coupons() *coupons.Service {
	return &coupons.Service{Store: s.store, Clock: s.opts.Clock}
}

// CouponClicks lists the recorded follows of an offer's coupon URLs, oldest first.
func (s *Sim) CouponClicks(channel, offerID string) ([]CouponClick, error) {
	return s.coupons().Clicks(channel, offerID)
}

// InvalidateCoupons marks every delivered coupon of an offer invalidated
// from at on (section 3: invalidation is at offer granularity), so
// getUserCoupons reports state "invalidated" once the simulated clock
// reaches at. The coupon-status webhook and the control API build on it.
func (s *Sim) InvalidateCoupons(channel, offerID string, at time.Time, reason string) (int, error) {
	return s.coupons().Invalidate(channel, offerID, at, reason)
}

// couponInvalidator lets a fired COUPON_INVALIDATED push mark the offer's
// delivered coupons (WH-4); it is the default Options.Control.Invalidator.
type couponInvalidator struct{ s *Sim }

func (ci couponInvalidator) InvalidateOffer(channel, offerID string, at time.Time, reason string) error {
	_, err := ci.s.InvalidateCoupons(channel, offerID, at, reason)
	return err
}
