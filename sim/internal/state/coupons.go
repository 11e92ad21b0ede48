package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Coupon state, keyed per channel: every key starts with the channel name.
var (
	bucketCouponStock = bucket("coupon-stock")  // channel,offer -> coupons issued
	bucketCouponTx    = bucket("coupon-tx")     // channel,extTransactionId -> []txEntry
	bucketCoupons     = bucket("coupons")       // channel,offer,virtualId + seq -> model.Coupon
	bucketCouponClick = bucket("coupon-clicks") // channel,offer + n -> model.CouponClick
)

// CouponTx is one transaction over a channel's coupons. Its methods are
// valid only inside the function given to UpdateCoupons or ViewCoupons.
// It stores; the coupons package decides.
type CouponTx struct {
	tx      *bolt.Tx
	channel string
	h       *couponHandles
	// What this call last read, so Deliver does not look again: a
	// claim reads the extTransactionId's deliveries and the offer's
	// count, then delivers.
	seenTx     string    // extTransactionId Deliveries read
	seenTxOK   bool      // seenTx and seenList are set
	seenList   []txEntry // its entries
	seenOffer  string    // offer Issued read
	seenIssued int       // its count
	seenOK     bool      // seenOffer and seenIssued are set
}

// couponHandles are one transaction's coupon buckets and a cursor on
// each, for lookups: every claim of a group commit shares them, where
// each Get looked the bucket up and grew a new cursor's stack.
type couponHandles struct {
	tx                         *bolt.Tx
	stock, txs, coupons        *bolt.Bucket
	stockCur, txCur, couponCur *bolt.Cursor
	scratch                    []byte // lookup keys (bbolt keeps no lookup key)
}

func newCouponHandles(tx *bolt.Tx) *couponHandles {
	h := &couponHandles{tx: tx, stock: tx.Bucket(bucketCouponStock), txs: tx.Bucket(bucketCouponTx), coupons: tx.Bucket(bucketCoupons)}
	h.stockCur, h.txCur, h.couponCur = h.stock.Cursor(), h.txs.Cursor(), h.coupons.Cursor()
	return h
}

// get is Bucket.Get through a reused cursor (its Seek starts afresh from
// the bucket's root, so it sees the transaction's own writes).
func get(c *bolt.Cursor, k []byte) []byte {
	if found, v := c.Seek(k); bytes.Equal(found, k) {
		return v
	}
	return nil
}

// txEntry is one coupon an extTransactionId delivered: its offer and the
// key of the coupon record.
type txEntry struct {
	Offer string
	Key   []byte
}

// key joins parts, each length-prefixed, so no part can run into the next
// and a key of fewer parts is a prefix of the longer ones.
func key(parts ...string) []byte {
	n := 8 // room for a sequence number after it (Deliver, clicks)
	for _, p := range parts {
		n += len(p) + 2 // a length under 16384 takes two bytes or one
	}
	return appendKey(make([]byte, 0, n), parts...)
}

// appendKey appends key(parts...) to b.
func appendKey(b []byte, parts ...string) []byte {
	for _, p := range parts {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
	}
	return b
}

// lookupKey is key(parts...) in the transaction's scratch space, for a
// Get or Seek only: the next lookup overwrites it.
func (t *CouponTx) lookupKey(parts ...string) []byte {
	t.h.scratch = appendKey(t.h.scratch[:0], parts...)
	return t.h.scratch
}

// count reads a counter's value (absent: 0).
func count(v []byte) int {
	if len(v) != 8 {
		return 0
	}
	return int(binary.BigEndian.Uint64(v))
}

// UpdateCoupons runs fn in one write transaction over channel's coupons,
// so what fn reads and writes is decided together (CPN-5, CPN-6).
// Parallel callers share a commit (group.go), so fn may run more than
// once: it must set its results afresh each time.
func (s *Store) UpdateCoupons(channel string, fn func(*CouponTx) error) error {
	if channel == "" {
		return errors.New("coupons: empty channel")
	}
	return s.groupUpdate(func(tx *bolt.Tx) error {
		// Only write transactions touch couponH, one at a time (bbolt's
		// writer lock orders them, and a commit's handlers run in the
		// committing goroutine before the next group starts). The
		// handles hold their transaction's nodes, so they go with its
		// commit; a failed transaction's are replaced by the next one's.
		if s.couponH == nil || s.couponH.tx != tx {
			s.couponH = newCouponHandles(tx)
			tx.OnCommit(func() { s.couponH = nil })
		}
		return fn(&CouponTx{tx: tx, channel: channel, h: s.couponH})
	})
}

// ViewCoupons runs fn in a read transaction over channel's coupons.
func (s *Store) ViewCoupons(channel string, fn func(*CouponTx) error) error {
	return s.db.View(func(tx *bolt.Tx) error { return fn(&CouponTx{tx: tx, channel: channel, h: newCouponHandles(tx)}) })
}

// Deliveries lists the coupons an extTransactionId delivered, first first.
func (t *CouponTx) Deliveries(extTransactionID string) ([]model.Coupon, error) {
	raw := get(t.h.txCur, t.lookupKey(t.channel, extTransactionID))
	var entries []txEntry
	if raw != nil {
		var err error
		if entries, err = decodeTxEntries(raw); err != nil {
			return nil, err
		}
	}
	t.seenTx, t.seenList, t.seenTxOK = extTransactionID, entries, true
	if entries == nil {
		return nil, nil
	}
	out := make([]model.Coupon, len(entries))
	for i, e := range entries {
		if err := getCoupon(t.h.coupons, e.Key, &out[i]); err != nil {
			return nil, fmt.Errorf("coupon of extTransactionId %q on offer %s: %w", extTransactionID, e.Offer, err)
		}
	}
	return out, nil
}

// Issued is how many coupons of an offer were delivered.
func (t *CouponTx) Issued(offerID string) int {
	n := count(get(t.h.stockCur, t.lookupKey(t.channel, offerID)))
	t.seenOffer, t.seenIssued, t.seenOK = offerID, n, true
	return n
}

// IssuedTo is how many coupons of an offer were delivered to a user:
// the user's coupon records, which sit together under one prefix. A
// per-user counter in a bucket of its own (builds before issue 25) was
// one more leaf and branch page per group commit; it was written with
// each record in the same transaction, so the records count the same.
func (t *CouponTx) IssuedTo(offerID, virtualID string) int {
	prefix := t.lookupKey(t.channel, offerID, virtualID)
	n := 0
	cur := t.h.couponCur
	for k, _ := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = cur.Next() {
		if len(k) == len(prefix)+8 {
			n++
		}
	}
	return n
}

// Deliver stores a new coupon of the transaction's channel under its
// Seq (the user's count is its records), counts it against the offer,
// and records it under its extTransactionId.
func (t *CouponTx) Deliver(c model.Coupon) error {
	if c.Channel != t.channel || c.OfferID == "" || c.ExtTransactionID == "" || c.Seq < 1 {
		return errors.New("coupon without its channel, offer, extTransactionId or sequence")
	}
	sb, cb, txb := t.h.stock, t.h.coupons, t.h.txs
	issued := t.seenIssued
	if !t.seenOK || t.seenOffer != c.OfferID {
		issued = count(get(t.h.stockCur, t.lookupKey(c.Channel, c.OfferID)))
	}
	entries := t.seenList
	if !t.seenTxOK || t.seenTx != c.ExtTransactionID {
		entries = nil
		if raw := get(t.h.txCur, t.lookupKey(c.Channel, c.ExtTransactionID)); raw != nil {
			var err error
			if entries, err = decodeTxEntries(raw); err != nil {
				return err
			}
		}
	}
	// The claim's keys and values (bbolt keeps each value until the
	// commit) in one allocation: each is capped, so a growing append
	// never moves one.
	s := slab{buf: make([]byte, 0, 384+2*len(c.URL))}
	s.buf = appendKey(s.buf, c.Channel, c.OfferID, c.VirtualID)
	s.buf = binary.BigEndian.AppendUint64(s.buf, uint64(c.Seq))
	ck := s.take()
	s.buf = appendCoupon(s.buf, &c)
	if err := cb.Put(ck, s.take()); err != nil {
		return err
	}
	s.buf = appendKey(s.buf, c.Channel, c.OfferID)
	stockKey := s.take()
	s.buf = binary.BigEndian.AppendUint64(s.buf, uint64(issued+1))
	if err := sb.Put(stockKey, s.take()); err != nil {
		return err
	}
	s.buf = appendKey(s.buf, c.Channel, c.ExtTransactionID)
	txKey := s.take()
	s.buf = appendTxEntry(appendTxEntries(s.buf, entries), txEntry{Offer: c.OfferID, Key: ck})
	if err := txb.Put(txKey, s.take()); err != nil {
		return err
	}
	t.seenOffer, t.seenIssued, t.seenOK = c.OfferID, issued+1, true
	t.seenTx, t.seenList, t.seenTxOK = c.ExtTransactionID, append(entries[:len(entries):len(entries)], txEntry{Offer: c.OfferID, Key: ck}), true
	return nil
}

// slab cuts the keys and values appended to buf into pieces, each capped
// so that a later append never moves or overwrites it.
type slab struct {
	buf  []byte
	from int
}

// take is what was appended since the last take.
func (s *slab) take() []byte {
	p := s.buf[s.from:len(s.buf):len(s.buf)]
	s.from = len(s.buf)
	return p
}

// getCoupon decodes the coupon at key (bbolt's bytes are copied).
func getCoupon(b *bolt.Bucket, key []byte, c *model.Coupon) error {
	raw := b.Get(key)
	if raw == nil {
		return errNotFound
	}
	return decodeCoupon(raw, c)
}

// UserCoupons lists a user's coupons for an offer, oldest first (CPN-9).
func (s *Store) UserCoupons(channel, offerID, virtualID string) ([]model.Coupon, error) {
	return scanSeq(s, bucketCoupons, key(channel, offerID, virtualID), decodeCoupon)
}

// scanSeq decodes the values under prefix+<8-byte sequence>, in order.
func scanSeq[T any](s *Store, bucket, prefix []byte, decode func([]byte, *T) error) ([]T, error) {
	// Records directly under prefix end in an 8-byte sequence number.
	return scanWhere(s, bucket, prefix, func(k []byte) bool { return len(k) == len(prefix)+8 }, decode)
}

// scanWhere decodes every value under prefix whose key passes keep (nil: all).
func scanWhere[T any](s *Store, bucket, prefix []byte, keep func(k []byte) bool, decode func([]byte, *T) error) ([]T, error) {
	out := []T{}
	err := s.db.View(func(tx *bolt.Tx) error {
		cur := tx.Bucket(bucket).Cursor()
		for k, v := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = cur.Next() {
			if keep != nil && !keep(k) {
				continue
			}
			var x T
			if err := decode(v, &x); err != nil {
				return err
			}
			out = append(out, x)
		}
		return nil
	})
	return out, err
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
			if err := decodeCoupon(v, &c); err != nil {
				return err
			}
			if c.OfferID != offerID || !c.InvalidatedAt.IsZero() {
				continue
			}
			c.InvalidatedAt, c.InvalidReason = at, reason
			todo = append(todo, upd{bytes.Clone(k), c})
		}
		for _, u := range todo {
			if err := b.Put(u.k, encodeCoupon(&u.c)); err != nil {
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
		return b.Put(binary.BigEndian.AppendUint64(key(c.Channel, c.OfferID), n), appendCouponClick(nil, &c))
	})
}

// CouponClicks lists the recorded follows of an offer's coupon URLs.
func (s *Store) CouponClicks(channel, offerID string) ([]model.CouponClick, error) {
	return scanSeq(s, bucketCouponClick, key(channel, offerID), decodeCouponClick)
}

// couponBuckets hold every coupon record; their keys start with key(channel).
var couponBuckets = [][]byte{bucketCouponStock, bucketCouponTx, bucketCoupons, bucketCouponClick}

// resetCoupons deletes a channel's coupon records ("" = every
// channel's): stock counters, idempotency records, coupons and clicks
// (SIM-2). Coupon keys are length-prefixed rather than "<channel>\x00",
// so ResetChannel covers them through this hook.
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

// OfferCoupons lists every coupon delivered of one offer, every user.
func (s *Store) OfferCoupons(channel, offerID string) ([]model.Coupon, error) {
	// Coupons sit under channel,offer,virtualId + seq: every user's are under channel,offer.
	return scanWhere(s, bucketCoupons, key(channel, offerID), nil, decodeCoupon)
}

// ChannelUserCoupons lists every coupon of a user in a channel, across
// offers. It scans the channel's coupons, so it is for the control API,
// not for a hot path.
func (s *Store) ChannelUserCoupons(channel, virtualID string) ([]model.Coupon, error) {
	all, err := scanWhere(s, bucketCoupons, key(channel), nil, decodeCoupon)
	out := []model.Coupon{}
	for _, c := range all {
		if c.VirtualID == virtualID {
			out = append(out, c)
		}
	}
	return out, err
}
