package cards

// The listing's answer without reflection (issue 25): encoding/json was
// a fifth of the listing's CPU, and Wire's WireCard values and URL
// strings most of its allocations. AppendWire writes the same bytes
// straight from the cards; TestAppendWire_sameAsEncodingJSON compares
// the two on generated cards.

import (
	"cmp"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/jsonw"
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// WithPage reads a page of user's cards, in listing order, with how many
// they have (state.Store.UserCardPage), and hands it to render while it
// lives. The views are the store's pooled buffer, back in its pool once
// render returns: the service owns the page from read to release, and
// render must keep nothing of it.
func (s *Service) WithPage(channel, user string, offset, limit int, render func(total int, views []model.CardView[[]byte]) error) error {
	page, err := s.Store.UserCardPage(channel, user, offset, limit)
	if err != nil {
		return err
	}
	defer page.Release()
	return render(page.Total, page.Views)
}

// ListingCmp is the listing order: unscratched first, then revealed, each
// by rewardId.
func ListingCmp(a, b model.Card) int {
	if a.Revealed() != b.Revealed() {
		if a.Revealed() {
			return 1
		}
		return -1
	}
	return cmp.Compare(a.RewardID, b.RewardID)
}

// AppendWire appends the JSON array of Wire(base, sc, cards) (sc's
// Location is loc) as httpx.JSONSerializer writes it: encoding/json
// without HTML escaping.
func AppendWire(b []byte, base string, loc *time.Location, cards []model.Card) []byte {
	if !slices.IsSortedFunc(cards, ListingCmp) {
		cards = slices.Clone(cards)
		slices.SortStableFunc(cards, ListingCmp)
	}
	w := newWireWriter(base, loc)
	b = append(b, '[')
	for i := range cards {
		if i > 0 {
			b = append(b, ',')
		}
		v := model.ViewOf(&cards[i])
		b = appendWireCard(b, &w, &v)
	}
	return append(b, ']')
}

// AppendViews is AppendWire of the cards page shows, which are in
// listing order (state.Store.UserCardPage).
func AppendViews(b []byte, base string, loc *time.Location, page []model.CardView[[]byte]) []byte {
	w := newWireWriter(base, loc)
	// Room for the page at once: a buffer new from the pool grew by
	// doubling, five copies for a page of ten (issue 25).
	b = slices.Grow(b, 1+len(page)*wireCardSize)
	b = append(b, '[')
	for i := range page {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendWireCard(b, &w, &page[i])
	}
	return append(b, ']')
}

// wireCardSize is about what a card with a revealed reward renders to.
const wireCardSize = 640

// wireWriter is what rendering a page's cards keeps from one to the next.
type wireWriter struct {
	base             string
	loc              *time.Location
	scratch          [256]byte
	channel, escaped string // the last channel, and it query-escaped
	seen             bool
	// baseVerbatim: base needs no JSON escapes (jsonw.Verbatim), and so
	// neither does a URL made of it and parts that need none.
	baseVerbatim bool
}

func newWireWriter(base string, loc *time.Location) wireWriter {
	return wireWriter{base: base, loc: loc, baseVerbatim: jsonw.Verbatim(base)}
}

// offerKeys are the JSON keys of model.Offer's strings, in its field
// order (Offer.Strings), and whether each is a URL made absolute on the
// base (AbsoluteOffer).
var offerKeys = [model.OfferFields]struct {
	key string
	url bool
}{
	{`,"offerTitle":`, false}, {`,"description":`, false}, {`,"terms":`, false}, {`,"couponCode":`, false},
	{`,"endDate":`, false}, {`,"couponType":`, false}, {`,"couponImage":`, true}, {`,"redeemSteps":`, false},
	{`,"bannerDisplayUrl":`, true}, {`,"iconImage":`, true}, {`,"details":`, false}, {`,"siteId":`, false},
	{`,"siteName":`, false}, {`,"coverImage":`, true}, {`,"promoLink":`, true}, {`,"bgColor":`, false},
}

// appendWireCard appends the JSON object of one card of Wire.
func appendWireCard[S string | []byte](b []byte, w *wireWriter, c *model.CardView[S]) []byte {
	u := w.scratch[:0] // each URL, made absolute, before it is escaped
	b = append(b, `{"rewardId":`...)
	b = strconv.AppendUint(b, c.RewardID, 10)
	b = append(b, `,"isAlreadyRewarded":`...)
	b = strconv.AppendBool(b, c.Revealed)
	b = append(b, `,"createdDateTime":"`...)
	b = appendDateTimeMs(b, c.CreatedAt.In(w.loc)) // digits and separators only
	b = append(b, `","trackLink":[`...)
	if !w.seen || string(c.Channel) != w.channel {
		w.channel, w.seen = string(c.Channel), true
		w.escaped = url.QueryEscape(w.channel)
	}
	// TrackURL(base, ImpressionPath, c.Channel, c.RewardID, FromCard):
	// query escaping leaves nothing JSON escapes, so only base may.
	u = append(append(u, w.base...), ImpressionPath+"?channel="...)
	u = append(append(u, w.escaped...), "&from="+FromCard+"&rewardId="...)
	u = strconv.AppendUint(u, c.RewardID, 10)
	b = jsonw.AppendStringKnown(b, u, w.baseVerbatim)
	b = append(b, ']')
	if c.Revealed {
		for i, f := range offerKeys {
			b = append(b, f.key...)
			if v := c.Offer[i]; f.url && rootRelative(v) {
				u = append(append(u[:0], w.base...), v...)
				b = jsonw.AppendStringKnown(b, u, c.OfferVerbatim && w.baseVerbatim)
			} else {
				b = jsonw.AppendStringKnown(b, v, c.OfferVerbatim)
			}
		}
		b = append(b, `,"isSeen":true`...)
	}
	return append(b, '}')
}

// AppendClickTrack appends the JSON array of Wire(base, sc, cards)'s
// clicks, as AppendWire appends its cards: GetReward's clicktrack[].
func AppendClickTrack(b []byte, base string, cards []model.Card) []byte {
	if !slices.IsSortedFunc(cards, ListingCmp) {
		cards = slices.Clone(cards)
		slices.SortStableFunc(cards, ListingCmp)
	}
	var scratch [256]byte
	u := scratch[:0]
	b = append(b, '[')
	for i := range cards {
		c := &cards[i]
		if i > 0 {
			b = append(b, ',')
		}
		// TrackURL(base, ClickPath, c.Channel, c.RewardID, FromCard)
		u = append(append(u[:0], base...), ClickPath+"?channel="...)
		u = append(append(u, url.QueryEscape(c.Channel)...), "&from="+FromCard+"&rewardId="...)
		u = strconv.AppendUint(u, c.RewardID, 10)
		b = jsonw.AppendString(b, u)
	}
	return append(b, ']')
}

// appendDateTimeMs is t.AppendFormat(b, DateTimeMs) without parsing the
// layout each time, for years 0 to 9999.
func appendDateTimeMs(b []byte, t time.Time) []byte {
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, DateTimeMs)
	}
	hour, minute, sec := t.Clock()
	ms := t.Nanosecond() / 1e6 // truncated, as the layout's .000
	return append(b, byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+month/10), byte('0'+month%10), '-', byte('0'+day/10), byte('0'+day%10), ' ',
		byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+minute/10), byte('0'+minute%10), ':', byte('0'+sec/10), byte('0'+sec%10), '.',
		byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
}
