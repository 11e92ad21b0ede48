package state

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Coupon state, keyed per channel: every key starts with the channel name.
var (
	bucketCouponStock = bucket("coupon-stock")  // channel,offer -> coupons issued
	bucketCouponUser  = bucket("coupon-user")   // channel,offer,virtualId -> coupons issued to the user
	bucketCouponTx    = bucket("coupon-tx")     // channel,extTransactionId -> []txEntry
	bucketCoupons     = bucket("coupons")       // channel,offer,virtualId + seq -> model.Coupon
	bucketCouponClick = bucket("coupon-clicks") // channel,offer + n -> model.CouponClick
)

// ClaimOutcome is how a claim was decided.
type ClaimOutcome int

const (
	// Delivered: a new coupon was committed.
	Delivered ClaimOutcome = iota
	// Replayed: the extTransactionId was already delivered; Coupon is that result.
	Replayed
	// Exhausted: the offer's stock is used up.
	Exhausted
	// LimitReached: the user reached the offer's purchase_limit.
	LimitReached
	// OtherOffer: the extTransactionId was delivered on OtherOffer and the
	// cross-offer policy is to reject.
	OtherOffer
	// Refused: not a replay, and the caller's Refuse reason applies.
	Refused
	// OtherUser: the extTransactionId was delivered to another user; their
	// coupon is never handed out.
	OtherUser
)

// Cross-offer policies of ClaimRequest.CrossOffer.
const (
	CrossReject = "reject"
	CrossNew    = "new"
	CrossFirst  = "first"
)

// ClaimRequest is one fetchCouponCode decision.
type ClaimRequest struct {
	Channel, OfferID, VirtualID, ExtTransactionID string
	Stock                                         int
	// PurchaseLimit 0 means no per-user limit.
	PurchaseLimit int
	CrossOffer    string
	// Refuse, when set, refuses a claim that is not a replay (eligibility
	// decided by the caller), so a retry after delivery still replays.
	Refuse bool
	// New builds the coupon of the seq-th claim on the offer (1-based). It
	// must be a pure function of its argument: a batch may run it twice.
	New func(seq int) model.Coupon
}

// ClaimResult is the decision.
type ClaimResult struct {
	Outcome    ClaimOutcome
	Coupon     model.Coupon
	OtherOffer string
}

type txEntry struct {
	Offer string `json:"offer"`
	Key   []byte `json:"key"`
}

// key joins parts, each length-prefixed, so no part can run into the next
// and a key of fewer parts is a prefix of the longer ones.
func key(parts ...string) []byte {
	var b []byte
	for _, p := range parts {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
	}
	return b
}

func getCount(b *bolt.Bucket, k []byte) int {
	v := b.Get(k)
	if len(v) != 8 {
		return 0
	}
	return int(binary.BigEndian.Uint64(v))
}

func putCount(b *bolt.Bucket, k []byte, n int) error {
	return b.Put(k, binary.BigEndian.AppendUint64(nil, uint64(n)))
}

// ClaimCoupon decides a claim in one write transaction (CPN-5, CPN-6):
// replay, cross-offer reuse, stock and purchase_limit are read and the
// coupon, counters and idempotency record written together, so stock is
// never oversold and purchase_limit never exceeded under any concurrency.
// Group-committed (group.go): parallel claims share a commit.
func (s *Store) ClaimCoupon(r ClaimRequest) (ClaimResult, error) {
	if r.Channel == "" || r.OfferID == "" || r.ExtTransactionID == "" || r.New == nil {
		return ClaimResult{}, errors.New("claim without channel, offer, extTransactionId or coupon builder")
	}
	var res ClaimResult
	err := s.groupUpdate(func(tx *bolt.Tx) error {
		res = ClaimResult{}
		txb, cb := tx.Bucket(bucketCouponTx), tx.Bucket(bucketCoupons)
		txKey := key(r.Channel, r.ExtTransactionID)
		var entries []txEntry
		if raw := txb.Get(txKey); raw != nil {
			if err := json.Unmarshal(raw, &entries); err != nil {
				return err
			}
		}
		// replay answers the coupon at k, unless it is another user's.
		replay := func(k []byte) error {
			if err := getJSON(cb, k, &res.Coupon); err != nil {
				return err
			}
			res.Outcome = Replayed
			if res.Coupon.VirtualID != r.VirtualID {
				res = ClaimResult{Outcome: OtherUser}
			}
			return nil
		}
		for _, e := range entries {
			if e.Offer == r.OfferID {
				return replay(e.Key)
			}
		}
		if len(entries) > 0 {
			switch r.CrossOffer {
			case CrossFirst:
				return replay(entries[0].Key)
			case CrossNew:
			default:
				res.Outcome, res.OtherOffer = OtherOffer, entries[0].Offer
				return nil
			}
		}
		if r.Refuse {
			res.Outcome = Refused
			return nil
		}
		sb, ub := tx.Bucket(bucketCouponStock), tx.Bucket(bucketCouponUser)
		stockKey, userKey := key(r.Channel, r.OfferID), key(r.Channel, r.OfferID, r.VirtualID)
		issued := getCount(sb, stockKey)
		if issued >= r.Stock {
			res.Outcome = Exhausted
			return nil
		}
		mine := getCount(ub, userKey)
		if r.PurchaseLimit > 0 && mine >= r.PurchaseLimit {
			res.Outcome = LimitReached
			return nil
		}
		seq := issued + 1
		c := r.New(seq)
		c.Channel, c.OfferID, c.VirtualID, c.ExtTransactionID, c.Seq = r.Channel, r.OfferID, r.VirtualID, r.ExtTransactionID, seq
		ck := binary.BigEndian.AppendUint64(bytes.Clone(userKey), uint64(seq))
		if err := putJSON(cb, ck, c); err != nil {
			return err
		}
		if err := putCount(sb, stockKey, seq); err != nil {
			return err
		}
		if err := putCount(ub, userKey, mine+1); err != nil {
			return err
		}
		raw, err := json.Marshal(append(entries, txEntry{Offer: r.OfferID, Key: ck}))
		if err != nil {
			return err
		}
		if err := txb.Put(txKey, raw); err != nil {
			return err
		}
		res.Outcome, res.Coupon = Delivered, c
		return nil
	})
	return res, err
}

// UserCoupons lists a user's coupons for an offer, oldest first (CPN-9).
func (s *Store) UserCoupons(channel, offerID, virtualID string) ([]model.Coupon, error) {
	return scanSeq[model.Coupon](s, bucketCoupons, key(channel, offerID, virtualID))
}

// scanSeq decodes the values under prefix+<8-byte sequence>, in order.
func scanSeq[T any](s *Store, bucket, prefix []byte) ([]T, error) {
	// Records directly under prefix end in an 8-byte sequence number.
	return scanWhere[T](s, bucket, prefix, func(k []byte) bool { return len(k) == len(prefix)+8 })
}

// scanWhere decodes every value under prefix whose key passes keep (nil: all).
func scanWhere[T any](s *Store, bucket, prefix []byte, keep func(k []byte) bool) ([]T, error) {
	out := []T{}
	err := s.db.View(func(tx *bolt.Tx) error {
		cur := tx.Bucket(bucket).Cursor()
		for k, v := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = cur.Next() {
			if keep != nil && !keep(k) {
				continue
			}
			var x T
			if err := json.Unmarshal(v, &x); err != nil {
				return err
			}
			out = append(out, x)
		}
		return nil
	})
	return out, err
}

// CouponsIssued is how many coupons of an offer were delivered.
func (s *Store) CouponsIssued(channel, offerID string) (int, error) {
	var n int
	err := s.db.View(func(tx *bolt.Tx) error {
		n = getCount(tx.Bucket(bucketCouponStock), key(channel, offerID))
		return nil
	})
	return n, err
}

// InvalidateOffer marks every delivered coupon of an offer invalidated
// from at on, with reason (WH-4: invalidation is at offer granularity).
// Coupons already invalidated keep their first invalidation. It returns
// how many coupons it marked.
func (s *Store) InvalidateOffer(channel, offerID string, at time.Time, reason string) (int, error) {
	n := 0
	prefix := key(channel, offerID)
	err := s.db.Update(func(tx *bolt.Tx) error {
		n = 0
		b := tx.Bucket(bucketCoupons)
		cur := b.Cursor()
		type upd struct {
			k []byte
			c model.Coupon
		}
		var todo []upd
		for k, v := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = cur.Next() {
			var c model.Coupon
			if err := json.Unmarshal(v, &c); err != nil {
				return err
			}
			if c.OfferID != offerID || !c.InvalidatedAt.IsZero() {
				continue
			}
			c.InvalidatedAt, c.InvalidReason = at, reason
			todo = append(todo, upd{bytes.Clone(k), c})
		}
		for _, u := range todo {
			if err := putJSON(b, u.k, u.c); err != nil {
				return err
			}
		}
		n = len(todo)
		return nil
	})
	return n, err
}

// RecordCouponClick stores one follow of a coupon URL (CPN-8).
func (s *Store) RecordCouponClick(c model.CouponClick) error {
	return s.groupUpdate(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketCouponClick)
		n, err := b.NextSequence()
		if err != nil {
			return err
		}
		return putJSON(b, binary.BigEndian.AppendUint64(key(c.Channel, c.OfferID), n), c)
	})
}

// CouponClicks lists the recorded follows of an offer's coupon URLs.
func (s *Store) CouponClicks(channel, offerID string) ([]model.CouponClick, error) {
	return scanSeq[model.CouponClick](s, bucketCouponClick, key(channel, offerID))
}

// couponBuckets hold every coupon record; their keys start with key(channel).
var couponBuckets = [][]byte{bucketCouponStock, bucketCouponUser, bucketCouponTx, bucketCoupons, bucketCouponClick}

// Coupon keys are length-prefixed rather than "<channel>\x00", so
// ResetChannel covers them through a reset hook.
func init() { onReset(resetCoupons) }

// resetCoupons deletes a channel's coupon records ("" = every channel's).
func resetCoupons(tx *bolt.Tx, channel string) error {
	var prefix []byte
	if channel != "" {
		prefix = key(channel)
	}
	for _, name := range couponBuckets {
		if err := deletePrefix(tx.Bucket(name), prefix); err != nil {
			return err
		}
	}
	return nil
}

// ResetCoupons deletes every coupon record of a channel: stock and
// per-user counters, idempotency records, coupons and clicks (SIM-2).
func (s *Store) ResetCoupons(channel string) error {
	return s.db.Update(func(tx *bolt.Tx) error { return resetCoupons(tx, channel) })
}

// ChannelUserCoupons lists every coupon of a user in a channel, across
// offers. It scans the channel's coupons, so it is for the control API,
// not for a hot path.
func (s *Store) ChannelUserCoupons(channel, virtualID string) ([]model.Coupon, error) {
	all, err := scanWhere[model.Coupon](s, bucketCoupons, key(channel), nil)
	out := []model.Coupon{}
	for _, c := range all {
		if c.VirtualID == virtualID {
			out = append(out, c)
		}
	}
	return out, err
}
