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
	"strings"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/jsonw"
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// ListPage is List for the listing, which only renders its cards: they
// come from state.Store.ListUserCards (times in UTC, strings sharing one
// copy of the records).
func (s *Service) ListPage(channel, user string, offset, limit int) (cards []model.Card, total int, err error) {
	return s.Store.ListUserCards(channel, user, offset, limit)
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
	var scratch [256]byte
	u := scratch[:0] // each URL, made absolute, before it is escaped
	channel, escaped := "", ""
	b = append(b, '[')
	for i := range cards {
		c := &cards[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"rewardId":`...)
		b = strconv.AppendUint(b, c.RewardID, 10)
		b = append(b, `,"isAlreadyRewarded":`...)
		b = strconv.AppendBool(b, c.Revealed())
		b = append(b, `,"createdDateTime":"`...)
		b = appendDateTimeMs(b, c.CreatedAt.In(loc)) // digits and separators only
		b = append(b, `","trackLink":[`...)
		if c.Channel != channel || i == 0 {
			channel, escaped = c.Channel, url.QueryEscape(c.Channel)
		}
		// TrackURL(base, ImpressionPath, c.Channel, c.RewardID, FromCard)
		u = append(append(u[:0], base...), ImpressionPath+"?channel="...)
		u = append(append(u, escaped...), "&from="+FromCard+"&rewardId="...)
		u = strconv.AppendUint(u, c.RewardID, 10)
		b = jsonw.AppendString(b, u)
		b = append(b, ']')
		if r := c.Reward; r != nil {
			o := &r.Offer
			for _, f := range [...]struct {
				key, value string
				url        bool // made absolute on base (AbsoluteOffer)
			}{
				{`,"offerTitle":`, o.OfferTitle, false},
				{`,"description":`, o.Description, false},
				{`,"terms":`, o.Terms, false},
				{`,"couponCode":`, o.CouponCode, false},
				{`,"endDate":`, o.EndDate, false},
				{`,"couponType":`, o.CouponType, false},
				{`,"couponImage":`, o.CouponImage, true},
				{`,"redeemSteps":`, o.RedeemSteps, false},
				{`,"bannerDisplayUrl":`, o.BannerDisplayURL, true},
				{`,"iconImage":`, o.IconImage, true},
				{`,"details":`, o.Details, false},
				{`,"siteId":`, o.SiteID, false},
				{`,"siteName":`, o.SiteName, false},
				{`,"coverImage":`, o.CoverImage, true},
				{`,"promoLink":`, o.PromoLink, true},
				{`,"bgColor":`, o.BgColor, false},
			} {
				b = append(b, f.key...)
				if f.url && strings.HasPrefix(f.value, "/") && !strings.HasPrefix(f.value, "//") {
					u = append(append(u[:0], base...), f.value...)
					b = jsonw.AppendString(b, u)
				} else {
					b = jsonw.AppendString(b, f.value)
				}
			}
			b = append(b, `,"isSeen":true`...)
		}
		b = append(b, '}')
	}
	return append(b, ']')
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
