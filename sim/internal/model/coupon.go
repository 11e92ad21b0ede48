package model

import "time"

// Coupon states (section 3).
const (
	CouponDelivered   = "delivered"
	CouponInvalidated = "invalidated"
)

// Coupon is one delivered coupon of fetchCouponCode.
type Coupon struct {
	Channel          string    `json:"channel"`
	OfferID          string    `json:"offerId"`
	VirtualID        string    `json:"virtualId"`
	ExtTransactionID string    `json:"extTransactionId"`
	Seq              int       `json:"seq"`
	Code             string    `json:"code"`
	OrderID          string    `json:"orderId"`
	URL              string    `json:"url"`
	PurchasedAt      time.Time `json:"purchasedAt"`
	ValidUntil       time.Time `json:"validUntil"`
	// InvalidatedAt is when an invalidation takes effect; zero if none.
	InvalidatedAt time.Time `json:"invalidatedAt,omitzero"`
	InvalidReason string    `json:"invalidReason,omitempty"`
}

// State is the coupon's state at now.
func (c Coupon) State(now time.Time) string {
	if !c.InvalidatedAt.IsZero() && !now.Before(c.InvalidatedAt) {
		return CouponInvalidated
	}
	return CouponDelivered
}

// CouponClick is one follow of a coupon's click-and-redirect URL (CPN-8).
type CouponClick struct {
	Channel string    `json:"channel"`
	OfferID string    `json:"offerId"`
	Query   string    `json:"query"`
	At      time.Time `json:"at"`
}
