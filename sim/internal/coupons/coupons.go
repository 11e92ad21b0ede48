// Package coupons is the coupon domain: claiming a coupon of an offer
// (CPN-1 to CPN-8: claim window, targeting, price, stock, purchase_limit,
// idempotency per extTransactionId, the cross-offer policy), a user's
// coupons (CPN-9), the catalogue (CPN-10), the click-and-redirect URLs
// (CPN-8) and invalidation (WH-4). Every decision that must be atomic
// runs in one state transaction; the HTTP handler only translates.
package coupons

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/state"
)

// RedirectPrefix is the path under which coupon URLs are served (CPN-8).
const RedirectPrefix = contract.CouponRedirectPrefix

// Outcome is how a claim was decided.
type Outcome int

const (
	// Delivered: a new coupon was committed.
	Delivered Outcome = iota
	// Duplicate: the extTransactionId already delivered a coupon, and
	// Result.Coupon is that coupon (switches.coupons.duplicate: original).
	Duplicate
	// DuplicateRefused: a duplicate, refused (switches.coupons.duplicate: reject).
	DuplicateRefused
	// NoSuchOffer: the channel has no offer of that id.
	NoSuchOffer
	// WrongPrice: coinsUsed is not the offer's price and
	// switches.coupons.coinsMismatch refuses it.
	WrongPrice
	// Closed: the offer is inactive or outside its claim window.
	Closed
	// NotEligible: the offer's targeting excludes the user.
	NotEligible
	// Exhausted: the offer's stock is used up.
	Exhausted
	// LimitReached: the user reached the offer's purchase_limit.
	LimitReached
	// OtherOffer: the extTransactionId was used on another offer and the
	// cross-offer policy is to reject.
	OtherOffer
	// OtherUser: the extTransactionId was used by another user; their
	// coupon is never handed out.
	OtherUser
)

// Service runs coupon decisions against the store.
type Service struct {
	Store *state.Store
	Clock clock.PerChannel
}

// ClaimRequest is one fetchCouponCode.
type ClaimRequest struct {
	Scenario                                      *scenario.Scenario
	Channel, OfferID, VirtualID, ExtTransactionID string
	// Coins is coinsUsed.
	Coins int
	// BaseURL (scheme://host) starts the coupon's click-and-redirect URL.
	BaseURL string
}

// Result is the decision. Coupon is set when Outcome is Delivered or
// Duplicate; any other outcome refused the claim, and Refused says why,
// with the contract's error code.
type Result struct {
	Outcome Outcome
	Coupon  model.Coupon
	Refused *refusal.Refusal
}

// The contract's error codes of a refused claim (section 7), and the
// simulator's duplicate rejection.
const (
	CodeInvalidRequest = "INVALID_REQUEST"
	CodeInvalidOffer   = "INVALID_OFFER"
	CodeNonEligible    = "NON_ELIGIBLE"
	CodeExhausted      = "COUPON_EXHAUSTED"
	CodeDuplicate      = "DUPLICATE_TRANSACTION"
	CodeLimitReached   = "MAX_LIMIT_REACHED"
)

// refusals are the kind and code of each refusing outcome.
var refusals = map[Outcome]refusal.Refusal{
	NoSuchOffer:      {Kind: refusal.NotFound, Code: CodeInvalidOffer},
	WrongPrice:       {Kind: refusal.Invalid, Code: CodeInvalidRequest},
	Closed:           {Kind: refusal.NotFound, Code: CodeInvalidOffer},
	NotEligible:      {Kind: refusal.NotEligible, Code: CodeNonEligible},
	Exhausted:        {Kind: refusal.LimitReached, Code: CodeExhausted},
	LimitReached:     {Kind: refusal.LimitReached, Code: CodeLimitReached},
	DuplicateRefused: {Kind: refusal.Conflict, Code: CodeDuplicate},
	OtherOffer:       {Kind: refusal.Conflict, Code: CodeDuplicate},
	OtherUser:        {Kind: refusal.Conflict, Code: CodeDuplicate},
}

// Claim decides a claim. The offer's window and targeting are checked
// first but refuse only a claim that is not a duplicate, so a retry after
// delivery still gets its coupon. Duplicate, cross-offer reuse, stock and
// purchase_limit are read and the coupon written in one write transaction
// (CPN-5, CPN-6): stock is never oversold and purchase_limit never
// exceeded under any concurrency.
func (s *Service) Claim(r ClaimRequest) (Result, error) {
	sc := r.Scenario
	offer, found := sc.Offers.Offer(r.Channel, r.OfferID)
	if !found {
		return refused(NoSuchOffer, "offer %q is not an offer of channel %s", r.OfferID, r.Channel), nil
	}
	if sc.Switches.Coupons.CoinsMismatch == scenario.Refuse && r.Coins != offer.Coins {
		return refused(WrongPrice, "coinsUsed: %d is not the price of offer %s (%d coins)", r.Coins, offer.ID, offer.Coins), nil
	}
	now := clock.NowFor(s.Clock, r.Channel)
	var early *Result // refused before the store is read; a duplicate still wins
	if open, why := offer.Open(now); !open {
		closed := refused(Closed, "%s", why)
		early = &closed
	} else if !offer.Eligible(r.VirtualID) {
		no := refused(NotEligible, "offer %s's targeting excludes virtualId %q", offer.ID, r.VirtualID)
		early = &no
	}
	var res Result
	err := s.Store.UpdateCoupons(r.Channel, func(tx *state.CouponTx) error {
		prior, err := tx.Deliveries(r.ExtTransactionID)
		if err != nil {
			return err
		}
		if dup, ok := duplicateOf(prior, offer.ID, sc.Switches.Coupons.CrossOffer); ok {
			res = duplicate(r, dup, sc.Switches.Coupons.Duplicate)
			return nil
		}
		if len(prior) > 0 && sc.Switches.Coupons.CrossOffer != scenario.CrossNew {
			res = refused(OtherOffer, "extTransactionId %q was already used on offer %s", r.ExtTransactionID, prior[0].OfferID)
			return nil
		}
		if early != nil {
			res = *early
			return nil
		}
		issued := tx.Issued(offer.ID)
		if issued >= offer.StockN {
			res = refused(Exhausted, "offer %s has no coupons left", offer.ID)
			return nil
		}
		if offer.PurchaseLimit > 0 && tx.IssuedTo(offer.ID, r.VirtualID) >= offer.PurchaseLimit {
			res = refused(LimitReached, "virtualId %q reached purchase_limit %d of offer %s", r.VirtualID, offer.PurchaseLimit, offer.ID)
			return nil
		}
		c := newCoupon(r, offer, issued+1, now)
		res = Result{Outcome: Delivered, Coupon: c}
		return tx.Deliver(c)
	})
	return res, err
}

func refused(o Outcome, format string, args ...any) Result {
	r := refusals[o]
	r.Msg = fmt.Sprintf(format, args...)
	return Result{Outcome: o, Refused: &r}
}

// duplicateOf picks, among the coupons an extTransactionId delivered
// (oldest first), the one a claim of offerID is a duplicate of: the one
// of that offer, else under crossOffer "first" the first one.
func duplicateOf(prior []model.Coupon, offerID, crossOffer string) (model.Coupon, bool) {
	for _, c := range prior {
		if c.OfferID == offerID {
			return c, true
		}
	}
	if len(prior) > 0 && crossOffer == scenario.CrossFirst {
		return prior[0], true
	}
	return model.Coupon{}, false
}

// duplicate answers a duplicate claim: the earlier coupon, unless it is
// another user's or the switch refuses duplicates.
func duplicate(r ClaimRequest, c model.Coupon, policy string) Result {
	switch {
	case c.VirtualID != r.VirtualID:
		return refused(OtherUser, "extTransactionId %q was already used by another user", r.ExtTransactionID)
	case policy == scenario.DuplicateReject:
		return refused(DuplicateRefused, "extTransactionId %q was already processed", r.ExtTransactionID)
	}
	return Result{Outcome: Duplicate, Coupon: c}
}

// newCoupon builds the seq-th coupon of an offer (1-based): its code,
// order id and click-and-redirect URL.
func newCoupon(r ClaimRequest, offer *scenario.Offer, seq int, now time.Time) model.Coupon {
	order := orderID(offer.ID, seq)
	shown := "" // the URL shows the order id only where the answer does (CPN-7)
	if r.Scenario.Switches.Coupons.OrderID {
		shown = order
	}
	var u string
	if q := offer.RedirectQuery(r.VirtualID, r.ExtTransactionID, shown); q != "" {
		u = r.BaseURL + RedirectPrefix + url.PathEscape(r.Channel) + "/" + url.PathEscape(offer.ID) + "?" + q // RedirectURL's, with the query, in one string
	} else {
		u = RedirectURL(r.BaseURL, r.Channel, offer.ID)
	}
	return model.Coupon{
		Channel: r.Channel, OfferID: offer.ID, VirtualID: r.VirtualID, ExtTransactionID: r.ExtTransactionID, Seq: seq,
		Code: offer.Code(seq), OrderID: order, URL: u,
		PurchasedAt: now, ValidUntil: offer.ValidUntil(now),
	}
}

// orderID is fmt.Sprintf("ORD-%s-%06d", offerID, seq) for seq >= 0, in
// one allocation (Sprintf took more, inside the claim's transaction).
func orderID(offerID string, seq int) string {
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], int64(seq), 10)
	var b strings.Builder
	b.Grow(len("ORD--000000") + len(offerID) + len(d))
	b.WriteString("ORD-")
	b.WriteString(offerID)
	b.WriteByte('-')
	for range 6 - len(d) {
		b.WriteByte('0')
	}
	b.Write(d)
	return b.String()
}

// RedirectURL is the click-and-redirect URL of an offer's coupons, without query.
func RedirectURL(base, channel, offerID string) string {
	return base + RedirectPrefix + url.PathEscape(channel) + "/" + url.PathEscape(offerID)
}

// Held is a coupon a user holds and its state at the time of asking.
type Held struct {
	model.Coupon
	State string
}

// UserCoupons lists a user's coupons of an offer, oldest first, or of
// every offer when offerID is "" (CPN-9: the contract describes the call
// "for that user and offer"; both readings serve).
func (s *Service) UserCoupons(channel, offerID, virtualID string) ([]Held, error) {
	var list []model.Coupon
	var err error
	if offerID == "" {
		list, err = s.Store.ChannelUserCoupons(channel, virtualID)
	} else {
		list, err = s.Store.UserCoupons(channel, offerID, virtualID)
	}
	if err != nil {
		return nil, err
	}
	now := clock.NowFor(s.Clock, channel)
	out := make([]Held, 0, len(list))
	for _, c := range list {
		out = append(out, Held{Coupon: c, State: c.State(now)})
	}
	return out, nil
}

// Listed is an offer of the catalogue and how many coupons it has left.
type Listed struct {
	*scenario.Offer
	Left int
}

// Catalogue lists a channel's open offers, in file order, and only those
// whose targeting admits virtualID when one is given (CPN-10).
func (s *Service) Catalogue(sc *scenario.Scenario, channel, virtualID string) ([]Listed, error) {
	now := clock.NowFor(s.Clock, channel)
	out := []Listed{}
	err := s.Store.ViewCoupons(channel, func(tx *state.CouponTx) error {
		out = out[:0]
		for _, o := range sc.OfferList(channel) {
			if open, _ := o.Open(now); !open || (virtualID != "" && !o.Eligible(virtualID)) {
				continue
			}
			out = append(out, Listed{Offer: o, Left: max(o.StockN-tx.Issued(o.ID), 0)})
		}
		return nil
	})
	return out, err
}

// Follow records one follow of a coupon URL and tells where it leads
// (CPN-8); found is false if the channel has no such offer.
func (s *Service) Follow(sc *scenario.Scenario, channel, offerID, rawQuery string) (target string, found bool, err error) {
	offer, found := sc.Offers.Offer(channel, offerID)
	if !found {
		return "", false, nil
	}
	click := model.CouponClick{Channel: channel, OfferID: offerID, Query: rawQuery, At: clock.NowFor(s.Clock, channel)}
	if err := s.Store.RecordCouponClick(click); err != nil {
		return "", true, err
	}
	return offer.RedirectTarget(), true, nil
}

// Clicks lists the recorded follows of an offer's coupon URLs, oldest first.
func (s *Service) Clicks(channel, offerID string) ([]model.CouponClick, error) {
	return s.Store.CouponClicks(channel, offerID)
}

// Invalidate marks every delivered coupon of an offer invalidated from
// at on, with reason (WH-4: invalidation is at offer granularity).
// Coupons already invalidated keep their first invalidation. It returns
// how many coupons it marked.
func (s *Service) Invalidate(channel, offerID string, at time.Time, reason string) (int, error) {
	return s.Store.InvalidateOffer(channel, offerID, at, reason)
}

// Delivered lists every coupon delivered of an offer, for the stock
// picture of the control dashboard.
func (s *Service) Delivered(channel, offerID string) ([]model.Coupon, error) {
	return s.Store.OfferCoupons(channel, offerID)
}
