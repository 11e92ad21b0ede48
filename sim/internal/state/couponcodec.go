package state

import (
	"encoding/binary"
	"encoding/json"
	"errors"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Coupons and their extTransactionId records are stored in the binary
// encoding of codec.go, as cards are: encoding/json's
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
	d := newDecoder(raw)
	if d.Byte() != couponCodecV1 {
		return errCouponCodec
	}
	for _, s := range [...]*string{&c.Channel, &c.OfferID, &c.VirtualID, &c.ExtTransactionID, &c.Code, &c.OrderID, &c.URL, &c.InvalidReason} {
		*s = d.String()
	}
	c.Seq = int(d.Varint())
	c.PurchasedAt = d.time()
	c.ValidUntil = d.time()
	c.InvalidatedAt = d.time()
	return d.Done(errCouponCodec)
}

// appendTxEntries appends the encoding of an extTransactionId's
// deliveries to b.
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

// decodeTxEntries reads what appendTxEntries wrote.
func decodeTxEntries(raw []byte) ([]txEntry, error) {
	var entries []txEntry
	d := newDecoder(raw)
	if d.Byte() != couponCodecV1 {
		return nil, errCouponCodec
	}
	for d.Len() > 0 && !d.Failed() {
		entries = append(entries, txEntry{Offer: d.String(), Key: []byte(d.String())})
	}
	return entries, d.Done(errCouponCodec)
}

// couponClickV1 tags a click stored in the binary encoding (format 3);
// format 1 and 2 files stored clicks as JSON objects, which start with
// '{' and are read as they are.
const couponClickV1 = 0x01

var errCouponClick = errors.New("state: corrupt coupon click record")

// appendCouponClick appends the encoding of c to b.
func appendCouponClick(b []byte, c *model.CouponClick) []byte {
	b = append(b, couponClickV1)
	for _, s := range [...]string{c.Channel, c.OfferID, c.Query} {
		b = appendStr(b, s)
	}
	return appendTime(b, c.At)
}

// decodeCouponClick reads a stored click, binary or (an older file's)
// JSON.
func decodeCouponClick(raw []byte, c *model.CouponClick) error {
	if len(raw) > 0 && raw[0] == '{' {
		return json.Unmarshal(raw, c)
	}
	d := newDecoder(raw)
	if d.Byte() != couponClickV1 {
		return errCouponClick
	}
	for _, s := range [...]*string{&c.Channel, &c.OfferID, &c.Query} {
		*s = d.String()
	}
	c.At = d.time()
	return d.Done(errCouponClick)
}
