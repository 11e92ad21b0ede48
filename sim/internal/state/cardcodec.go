package state

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"

	"github.com/rewardsim/rewardsim/sim/internal/bincodec"
	"github.com/rewardsim/rewardsim/sim/internal/jsonw"
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Cards are stored in the binary encoding of codec.go, not JSON: the
// listing decodes up to ten cards a call and encoding/json's reflection
// was 38% of its CPU (issue 25).
//
// TestCardCodec_everyField fills every field of model.Card by reflection,
// so a field added there and forgotten here fails it.
const cardCodecV1 = 0x01

var (
	errCardCodec = errors.New("state: corrupt card record")
	errListCodec = errors.New("state: corrupt list record")
)

// Flags of a stored card.
const (
	cardHasAmount = 1 << iota
	cardHasReward
	cardFallback
	// cardOfferVerbatim: every string of the offer is written in JSON as
	// it is (model.CardView.OfferVerbatim); without it the listing scans
	// them for what to escape.
	cardOfferVerbatim
	// cardIdempotent: the card was recorded under its source and
	// extTransactionId (SetIssued), so a txn tail read back from the
	// cards holds it (txntail.go).
	cardIdempotent
)

// cardIdempotency reads what a txn tail needs of a stored card: its
// source, extTransactionId and whether SetIssued recorded it. kind and
// key are slices of raw.
func cardIdempotency(raw []byte) (kind, key []byte, once bool, err error) {
	d := bincodec.NewDecoder(raw)
	if d.Byte() != cardCodecV1 {
		return nil, nil, false, errCardCodec
	}
	d.Uvarint()
	for range 4 { // Channel, VirtualID, CampaignID, Pool
		d.Bytes()
	}
	kind, key = d.Bytes(), d.Bytes()
	for range 3 { // Trigger, SubTrigger, DateAndTime
		d.Bytes()
	}
	flags := d.Byte()
	if d.Failed() {
		return nil, nil, false, errCardCodec
	}
	return kind, key, flags&cardIdempotent != 0, nil
}

// markIdempotent is a copy of the stored card raw with cardIdempotent set.
func markIdempotent(raw []byte) ([]byte, error) {
	d := bincodec.NewDecoder(raw)
	d.Byte()
	d.Uvarint()
	for range 9 {
		d.Bytes()
	}
	at := len(raw) - d.Len()
	if d.Failed() || at >= len(raw) {
		return nil, errCardCodec
	}
	out := append([]byte(nil), raw...)
	out[at] |= cardIdempotent
	return out, nil
}

func encodeCard(c *model.Card) []byte {
	b := make([]byte, 0, 256)
	b = append(b, cardCodecV1)
	b = binary.AppendUvarint(b, c.RewardID)
	for _, s := range [...]string{c.Channel, c.VirtualID, c.CampaignID, c.Pool, c.Source, c.ExtTransactionID, c.Trigger, c.SubTrigger, c.DateAndTime} {
		b = appendStr(b, s)
	}
	var flags byte
	if c.Amount != nil {
		flags |= cardHasAmount
	}
	if c.Reward != nil {
		flags |= cardHasReward
		if c.Reward.Fallback {
			flags |= cardFallback
		}
		if offerVerbatim(&c.Reward.Offer) {
			flags |= cardOfferVerbatim
		}
	}
	b = append(b, flags)
	if c.Amount != nil {
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(*c.Amount))
	}
	b = binary.AppendUvarint(b, uint64(len(c.Params)))
	keys := make([]string, 0, len(c.Params))
	for k := range c.Params {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the same card, the same bytes
	for _, k := range keys {
		b = appendStr(appendStr(b, k), c.Params[k])
	}
	b = appendTime(b, c.CreatedAt)
	b = appendTime(b, c.ExpiresAt)
	if r := c.Reward; r != nil {
		for _, s := range r.Offer.Strings() { // in field order: decoder.view reads them by index
			b = appendStr(b, s)
		}
		b = appendStr(b, r.EntryID)
		b = appendTime(b, r.RevealedAt)
	}
	return b
}

func offerVerbatim(o *model.Offer) bool {
	for _, s := range o.Strings() {
		if !jsonw.Verbatim(s) {
			return false
		}
	}
	return true
}

// decodeCard reads a stored card.
func decodeCard(raw []byte, c *model.Card) error {
	d := newDecoder(raw)
	return d.card(c)
}

// card decodes a card record.
func (d *decoder) card(c *model.Card) error {
	if d.Byte() != cardCodecV1 {
		return errCardCodec
	}
	c.RewardID = d.Uvarint()
	for _, s := range [...]*string{&c.Channel, &c.VirtualID, &c.CampaignID, &c.Pool, &c.Source, &c.ExtTransactionID, &c.Trigger, &c.SubTrigger, &c.DateAndTime} {
		*s = d.String()
	}
	flags := d.Byte()
	if flags&cardHasAmount != 0 {
		a := math.Float64frombits(d.Uint64())
		c.Amount = &a
	}
	if n := d.Uvarint(); n > 0 {
		if n > uint64(d.Len()) {
			return errCardCodec
		}
		c.Params = make(map[string]string, n)
		for range n {
			k := d.String()
			c.Params[k] = d.String()
		}
	}
	c.CreatedAt = d.time()
	c.ExpiresAt = d.time()
	if flags&cardHasReward != 0 {
		r := new(model.Reward)
		r.Fallback = flags&cardFallback != 0
		o := &r.Offer
		for _, s := range [...]*string{&o.OfferTitle, &o.Description, &o.Terms, &o.CouponCode, &o.EndDate, &o.CouponType, &o.CouponImage, &o.RedeemSteps,
			&o.BannerDisplayURL, &o.IconImage, &o.Details, &o.SiteID, &o.SiteName, &o.CoverImage, &o.PromoLink, &o.BgColor, &r.EntryID} {
			*s = d.String()
		}
		r.RevealedAt = d.time()
		c.Reward = r
	}
	return d.Done(errCardCodec)
}

// view reads a binary record as the listing shows it, every string a
// slice of the record itself (no copy: the view lives only as long as
// the record's bytes, a CardPage's), the times it does not show skipped.
func (d *decoder) view(v *model.CardView[[]byte]) error {
	if d.Byte() != cardCodecV1 {
		return errCardCodec
	}
	v.RewardID = d.Uvarint()
	v.Channel = d.Bytes()
	for range 8 { // VirtualID to DateAndTime, as card reads them
		d.Bytes()
	}
	flags := d.Byte()
	if flags&cardHasAmount != 0 {
		d.Uint64()
	}
	n := d.Uvarint()
	if n > uint64(d.Len()) {
		return errCardCodec
	}
	for range 2 * n { // Params' keys and values
		d.Bytes()
	}
	v.CreatedAt = d.instant()
	d.Bytes() // ExpiresAt (a length byte, as a time's)
	v.Revealed = flags&cardHasReward != 0
	v.OfferVerbatim = v.Revealed && flags&cardOfferVerbatim != 0
	v.Offer = [model.OfferFields][]byte{}
	if v.Revealed {
		for i := range v.Offer {
			v.Offer[i] = d.Bytes()
		}
		d.Bytes() // EntryID
		d.Bytes() // RevealedAt
	}
	return d.Done(errCardCodec)
}
