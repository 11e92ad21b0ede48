package state

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/jsonw"
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Cards are stored in a small binary encoding, not JSON: the listing
// decodes up to ten cards a call and encoding/json's reflection was 38%
// of its CPU (issue 25).
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
	// it is (model.CardView.OfferVerbatim). A record of an older build
	// lacks it and renders as before, scanned; older builds ignore it.
	cardOfferVerbatim
)

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
		for _, s := range r.Offer.Strings() { // in field order: cardDecoder.view reads them by index
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

func appendStr(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendTime(b []byte, t time.Time) []byte {
	at := len(b)
	b = append(b, 0) // the length, set below: MarshalBinary allocated each time
	out, err := t.AppendBinary(b)
	if err != nil { // a zone offset that is not whole minutes: keep the instant
		out, _ = t.UTC().AppendBinary(b)
	}
	out[at] = byte(len(out) - at - 1)
	return out
}

// decodeCard reads a stored card.
func decodeCard(raw []byte, c *model.Card) error {
	// One copy of the record; every string of the card is a slice of it.
	d := cardDecoder{b: raw, s: string(raw)}
	return d.card(c)
}

// card decodes a card record.
func (d *cardDecoder) card(c *model.Card) error {
	if d.byte() != cardCodecV1 {
		return errCardCodec
	}
	c.RewardID = d.uvarint()
	for _, s := range [...]*string{&c.Channel, &c.VirtualID, &c.CampaignID, &c.Pool, &c.Source, &c.ExtTransactionID, &c.Trigger, &c.SubTrigger, &c.DateAndTime} {
		*s = d.str()
	}
	flags := d.byte()
	if flags&cardHasAmount != 0 {
		a := math.Float64frombits(d.uint64())
		c.Amount = &a
	}
	if n := d.uvarint(); n > 0 {
		if n > uint64(len(d.b)) {
			return errCardCodec
		}
		c.Params = make(map[string]string, n)
		for range n {
			k := d.str()
			c.Params[k] = d.str()
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
			*s = d.str()
		}
		r.RevealedAt = d.time()
		c.Reward = r
	}
	if d.err || len(d.b) != 0 {
		return errCardCodec
	}
	return nil
}

// view reads a binary record as the listing shows it, every string a
// slice of the record itself (no copy: the view lives only as long as
// the transaction), the times it does not show skipped.
func (d *cardDecoder) view(v *model.CardView[[]byte]) error {
	if d.byte() != cardCodecV1 {
		return errCardCodec
	}
	v.RewardID = d.uvarint()
	v.Channel = d.bytes()
	for range 8 { // VirtualID to DateAndTime, as card reads them
		d.bytes()
	}
	flags := d.byte()
	if flags&cardHasAmount != 0 {
		d.uint64()
	}
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		return errCardCodec
	}
	for range 2 * n { // Params' keys and values
		d.bytes()
	}
	v.CreatedAt = d.instant()
	d.bytes() // ExpiresAt (a length byte, as a time's)
	v.Revealed = flags&cardHasReward != 0
	v.OfferVerbatim = v.Revealed && flags&cardOfferVerbatim != 0
	v.Offer = [model.OfferFields][]byte{}
	if v.Revealed {
		for i := range v.Offer {
			v.Offer[i] = d.bytes()
		}
		d.bytes() // EntryID
		d.bytes() // RevealedAt
	}
	if d.err || len(d.b) != 0 {
		return errCardCodec
	}
	return nil
}

// cardDecoder reads what encodeCard wrote; the first error sticks.
type cardDecoder struct {
	b   []byte
	s   string // a copy of the whole record (bbolt's bytes die with the transaction)
	err bool
}

func (d *cardDecoder) fail() { d.err, d.b = true, nil }

func (d *cardDecoder) byte() byte {
	if len(d.b) < 1 {
		d.fail()
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *cardDecoder) uint64() uint64 {
	if len(d.b) < 8 {
		d.fail()
		return 0
	}
	v := binary.BigEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *cardDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// bytes reads a string or a time (each a length, then that many bytes:
// a time's length is one byte, below 128, so the same varint) as a slice
// of the record.
func (d *cardDecoder) bytes() []byte {
	// A length below 128 is one byte: read here without a call (a
	// listing of ten cards reads some 300 strings and times).
	if b := d.b; len(b) > 0 && int(b[0]) < min(0x80, len(b)) {
		n := 1 + int(b[0])
		d.b = b[n:]
		return b[1:n:n]
	}
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

// str is a slice of the record's copy.
func (d *cardDecoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return ""
	}
	at := len(d.s) - len(d.b)
	d.b = d.b[n:]
	return d.s[at : at+int(n)]
}

func (d *cardDecoder) time() time.Time {
	raw := d.bytes()
	var t time.Time
	if err := t.UnmarshalBinary(raw); err != nil && !d.err {
		d.fail()
	}
	return t
}

// instant reads a time as the instant it names, in UTC: a zone other
// than UTC or Local costs an allocation per time (time.FixedZone), and
// the listing renders times in the scenario's zone.
func (d *cardDecoder) instant() time.Time {
	at, ok := instant(d.bytes())
	if !ok && !d.err {
		d.fail()
	}
	return at
}

// unixToInternal is the seconds from January 1, year 1 (the epoch of
// time.Time's binary form) to the Unix epoch.
const unixToInternal = 62135596800

// instant reads time.Time's binary form (version 1 or 2: seconds since
// year 1, nanoseconds, zone offset) as the instant it names, in UTC.
func instant(b []byte) (time.Time, bool) {
	if len(b) == 0 || (b[0] != 1 || len(b) != 15) && (b[0] != 2 || len(b) != 16) {
		return time.Time{}, false
	}
	sec := int64(binary.BigEndian.Uint64(b[1:]))
	nsec := int64(binary.BigEndian.Uint32(b[9:]))
	return time.Unix(sec-unixToInternal, nsec).UTC(), true
}
