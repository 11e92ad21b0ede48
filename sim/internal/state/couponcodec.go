package state

import (
	"encoding/binary"
	"errors"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Coupons and their extTransactionId records are stored in a small
// binary encoding, as cards are (cardcodec.go): encoding/json's
// reflection writing them was a tenth of fetchCouponCode's server CPU
// (issue 25).
//
// TestCouponCodec_everyField fills every field of model.Coupon by
// reflection, so a field added there and forgotten here fails it.
const couponCodecV1 = 0x01

var errCouponCodec = errors.New("state: corrupt coupon record")

func encodeCoupon(c *model.Coupon) []byte { return appendCoupon(make([]byte, 0, 192), c) }

// appendCoupon appends the encoding of c to b.
func appendCoupon(b []byte, c *model.Coupon) []byte {
	b = append(b, couponCodecV1)
	for _, s := range [...]string{c.Channel, c.OfferID, c.VirtualID, c.ExtTransactionID, c.Code, c.OrderID, c.URL, c.InvalidReason} {
		b = appendStr(b, s)
	}
	b = binary.AppendVarint(b, int64(c.Seq))
	b = appendTime(b, c.PurchasedAt)
	b = appendTime(b, c.ValidUntil)
	return appendTime(b, c.InvalidatedAt)
}

// decodeCoupon reads a stored coupon.
func decodeCoupon(raw []byte, c *model.Coupon) error {
	d := cardDecoder{b: raw, s: string(raw)} // one copy; the strings are slices of it
	if d.byte() != couponCodecV1 {
		return errCouponCodec
	}
	for _, s := range [...]*string{&c.Channel, &c.OfferID, &c.VirtualID, &c.ExtTransactionID, &c.Code, &c.OrderID, &c.URL, &c.InvalidReason} {
		*s = d.str()
	}
	seq, n := binary.Varint(d.b)
	if n <= 0 {
		return errCouponCodec
	}
	d.b = d.b[n:]
	c.Seq = int(seq)
	c.PurchasedAt = d.time()
	c.ValidUntil = d.time()
	c.InvalidatedAt = d.time()
	if d.err || len(d.b) != 0 {
		return errCouponCodec
	}
	return nil
}

// encodeTxEntries writes an extTransactionId's deliveries.
func encodeTxEntries(entries []txEntry) []byte { return appendTxEntries(nil, entries) }

// appendTxEntries appends the encoding of entries to b.
func appendTxEntries(b []byte, entries []txEntry) []byte {
	b = append(b, couponCodecV1)
	for _, e := range entries {
		b = appendTxEntry(b, e)
	}
	return b
}

// appendTxEntry appends one entry to an encoding appendTxEntries began.
func appendTxEntry(b []byte, e txEntry) []byte {
	b = appendStr(b, e.Offer)
	return append(binary.AppendUvarint(b, uint64(len(e.Key))), e.Key...)
}

// decodeTxEntries reads what encodeTxEntries wrote.
func decodeTxEntries(raw []byte) ([]txEntry, error) {
	var entries []txEntry
	d := cardDecoder{b: raw, s: string(raw)}
	if d.byte() != couponCodecV1 {
		return nil, errCouponCodec
	}
	for len(d.b) > 0 && !d.err {
		entries = append(entries, txEntry{Offer: d.str(), Key: []byte(d.str())})
	}
	if d.err {
		return nil, errCouponCodec
	}
	return entries, nil
}
