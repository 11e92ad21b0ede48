package sim

import (
	"context"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Test-only views of a Sim's coupons, kept out of the public API.

// CouponClicks lists the recorded follows of an offer's coupon URLs, oldest first (CPN-8).
func CouponClicks(s *Sim, channel, offerID string) ([]model.CouponClick, error) {
	return s.coupons().Clicks(channel, offerID)
}

// InvalidateCoupons marks every delivered coupon of an offer invalidated
// from at on, as a fired COUPON_INVALIDATED push does (WH-4).
func InvalidateCoupons(s *Sim, channel, offerID string, at time.Time, reason string) (int, error) {
	return s.coupons().Invalidate(channel, offerID, at, reason)
}

// JournalEntries are the journal's stored entries as the recording
// export reads them (unmasked), to compare the export with Build.
func JournalEntries(s *Sim) ([]journal.Entry, error) {
	return s.journal.Entries(context.Background(), journal.Filter{})
}

// QuietObservers leaves the request log, metrics and/or live observers
// out of simulators built until restore is called (benchmarks only).
func QuietObservers(log, metrics, live bool) (restore func()) {
	quietObservers.log, quietObservers.metrics, quietObservers.live = log, metrics, live
	return func() { quietObservers.log, quietObservers.metrics, quietObservers.live = false, false, false }
}
