package scenario

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// OfferFile is one coupon offer as written under `offers: {CHANNEL: [...]}`.
type OfferFile struct {
	ID             string         `yaml:"id"`
	Title          string         `yaml:"title"`
	Description    string         `yaml:"description"`
	Coins          int            `yaml:"coins"`
	Stock          *int           `yaml:"stock"`
	PurchaseLimit  int            `yaml:"purchaseLimit"`
	Active         *bool          `yaml:"active"`
	Targeting      Targeting      `yaml:"targeting"`
	Validity       Validity       `yaml:"validity"`
	CouponValidity model.Duration `yaml:"couponValidity"`
	Codes          CodeSource     `yaml:"codes"`
	URL            OfferURL       `yaml:"url"`
}

// Targeting restricts an offer to some users; empty means everyone.
type Targeting struct {
	VirtualIDs       []string `yaml:"virtualIds"`
	VirtualIDPattern string   `yaml:"virtualIdPattern"`
}

// Validity is the window in which an offer can be claimed (RFC 3339).
type Validity struct {
	From string `yaml:"from"`
	To   string `yaml:"to"`
}

// CodeSource gives an offer's coupon codes: a fixed list, or a pattern
// with {seq} (the claim's 1-based sequence, zero-padded to 6) and
// {offerId}.
type CodeSource struct {
	List    []string `yaml:"list"`
	Pattern string   `yaml:"pattern"`
}

// OfferURL is the click-and-redirect URL handed out with a coupon (CPN-8).
// The simulator serves it; Query is appended with {offerId}, {virtualId},
// {extTransactionId} and {orderId} expanded (a parameter with {orderId}
// is left out while switches.coupons.orderId is false); Target is where a
// follow redirects to.
type OfferURL struct {
	Query  string `yaml:"query"`
	Target string `yaml:"target"`
}

// CouponSwitches choose among readings of fetchCouponCode the contract
// does not show (switches.coupons).
type CouponSwitches struct {
	// HTTPStatus: "body" answers HTTP 200 whatever the body status (the
	// default: the contract says the status is carried in the body);
	// "mirror" answers with the body status as the HTTP status too.
	HTTPStatus string `yaml:"httpStatus"`
	// Duplicate is the answer to an extTransactionId already delivered on
	// the same offer: "original" returns the earlier result (default),
	// "reject" a duplicate rejection.
	Duplicate string `yaml:"duplicate"`
	// Replay is Duplicate's former name, still read so older files load.
	// Replaying a recording is another thing: the name no longer serves here.
	Replay string `yaml:"replay,omitempty"`
	// CrossOffer: an extTransactionId already used on another offer is
	// "reject"ed (default), treated as "new", or answered with the "first" result.
	CrossOffer string `yaml:"crossOffer"`
	// OrderID puts data.orderId in the success answer; default false.
	OrderID bool `yaml:"orderId"`
	// CoinsAsNumber: coinsUsed sent as a JSON number is "refuse"d
	// (default; the contract says string) or "accept"ed.
	CoinsAsNumber string `yaml:"coinsAsNumber"`
	// CoinsMismatch: coinsUsed differing from the offer's coins is
	// "accept"ed (default; the service holds no coin balance) or "refuse"d.
	CoinsMismatch string `yaml:"coinsMismatch"`
}

// Offer is a compiled offer.
type Offer struct {
	OfferFile
	Channel        string
	StockN         int
	active         bool
	from, to       time.Time
	pattern        *regexp.Regexp
	targets        map[string]bool
	CouponValidFor time.Duration
}

// Offers maps channel name, then offer id, to its offer.
type Offers map[string]map[string]*Offer

// Offer finds an offer of a channel.
func (o Offers) Offer(channel, id string) (*Offer, bool) {
	x, ok := o[channel][id]
	return x, ok
}

// OfferList returns a channel's offers in file order.
func (s *Scenario) OfferList(channel string) []*Offer {
	var out []*Offer
	for _, f := range s.File.Offers[channel] {
		if o, ok := s.Offers.Offer(channel, f.ID); ok {
			out = append(out, o)
		}
	}
	return out
}

// Open reports whether the offer can be claimed at now, and why not.
func (o *Offer) Open(now time.Time) (bool, string) {
	switch {
	case !o.active:
		return false, "offer " + o.ID + " is inactive"
	case !o.from.IsZero() && now.Before(o.from):
		return false, "offer " + o.ID + " opens at " + o.Validity.From
	case !o.to.IsZero() && !now.Before(o.to):
		return false, "offer " + o.ID + " closed at " + o.Validity.To
	}
	return true, ""
}

// Eligible reports whether targeting admits virtualID.
func (o *Offer) Eligible(virtualID string) bool {
	if len(o.targets) == 0 && o.pattern == nil {
		return true
	}
	return o.targets[virtualID] || (o.pattern != nil && o.pattern.MatchString(virtualID))
}

// Code is the coupon code of the seq-th claim (1-based).
func (o *Offer) Code(seq int) string {
	if len(o.Codes.List) > 0 {
		return o.Codes.List[(seq-1)%len(o.Codes.List)]
	}
	// One pass (expand), not a strings.Replacer made per claim;
	// TestOfferCode_sameAsReplacer compares them.
	vals := []placeholder{{"{seq}", fmt.Sprintf("%06d", seq)}, {"{offerId}", o.ID}}
	return string(expand(nil, o.Codes.Pattern, vals, nil))
}

// ValidUntil is the coupon_validity of a coupon bought at t: t plus
// couponValidity, never past the offer's validity.to.
func (o *Offer) ValidUntil(t time.Time) time.Time {
	v := t.Add(o.CouponValidFor)
	if !o.to.IsZero() && o.to.Before(v) {
		v = o.to
	}
	return v
}

// RedirectQuery expands the url.query template; each value is escaped.
// An empty orderID (switches.coupons.orderId off) drops every parameter
// that carries {orderId}: a switch that turns the field off turns it off
// in the URL too. It expands the template in one pass (expand)
// rather than through a strings.Replacer, whose making was most of its
// cost on every claim; TestRedirectQuery_sameAsReplacer compares them.
func (o *Offer) RedirectQuery(virtualID, extTx, orderID string) string {
	vals := []placeholder{{"{offerId}", o.ID}, {"{virtualId}", virtualID}, {"{extTransactionId}", extTx}, {"{orderId}", orderID}}
	if orderID != "" {
		return string(expand(nil, o.URL.Query, vals, url.QueryEscape))
	}
	var b []byte
	kept := 0
	for p := range strings.SplitSeq(o.URL.Query, "&") {
		if strings.Contains(p, "{orderId}") {
			continue
		}
		if kept > 0 {
			b = append(b, '&')
		}
		kept++
		b = expand(b, p, vals, url.QueryEscape)
	}
	return string(b)
}

// placeholder is a template's {name} and its value.
type placeholder struct{ name, value string }

// expand appends template with each placeholder replaced by its value
// (through esc, when not nil), left to right, as a strings.Replacer of
// the pairs does when no placeholder is a prefix of another.
func expand(b []byte, template string, vals []placeholder, esc func(string) string) []byte {
	for {
		i := strings.IndexByte(template, '{')
		if i < 0 {
			return append(b, template...)
		}
		b = append(b, template[:i]...)
		template = template[i:]
		matched := false
		for _, v := range vals {
			if strings.HasPrefix(template, v.name) {
				if esc != nil {
					b = append(b, esc(v.value)...)
				} else {
					b = append(b, v.value...)
				}
				template, matched = template[len(v.name):], true
				break
			}
		}
		if !matched {
			b = append(b, '{')
			template = template[1:]
		}
	}
}

// RedirectTarget is where following the coupon's url leads.
func (o *Offer) RedirectTarget() string {
	return strings.ReplaceAll(o.URL.Target, "{offerId}", url.PathEscape(o.ID))
}

// compileOffers checks and compiles the offers: section.
func compileOffers(f File, fail func(p, msg string)) Offers {
	if c := f.Switches.Coupons; c.Replay != "" && c.Replay != c.Duplicate {
		fail("/switches/coupons/replay", "replay is the former name of duplicate, which says otherwise: give duplicate only")
	}
	out := Offers{}
	channels := map[string]bool{}
	for _, c := range f.ChannelSpecs {
		channels[c.Name] = true
	}
	for _, ch := range slices.Sorted(maps.Keys(f.Offers)) { // errors in a stable order
		list := f.Offers[ch]
		base := "/offers/" + ch
		if !channels[ch] {
			fail(base, fmt.Sprintf("offers for channel %q, which is not in channels", ch))
			continue
		}
		out[ch] = map[string]*Offer{}
		for i, of := range list {
			p := base + "/" + strconv.Itoa(i)
			if _, dup := out[ch][of.ID]; dup {
				fail(p+"/id", fmt.Sprintf("offer id %q is used twice in channel %s", of.ID, ch))
				continue
			}
			o := &Offer{OfferFile: of, Channel: ch, active: of.Active == nil || *of.Active}
			var err error
			if of.Validity.From != "" {
				if o.from, err = time.Parse(time.RFC3339, of.Validity.From); err != nil {
					fail(p+"/validity/from", "not an RFC 3339 time: "+err.Error())
				}
			}
			if of.Validity.To != "" {
				if o.to, err = time.Parse(time.RFC3339, of.Validity.To); err != nil {
					fail(p+"/validity/to", "not an RFC 3339 time: "+err.Error())
				}
			}
			if pat := of.Targeting.VirtualIDPattern; pat != "" {
				if o.pattern, err = regexp.Compile(pat); err != nil {
					fail(p+"/targeting/virtualIdPattern", err.Error())
				}
			}
			if len(of.Targeting.VirtualIDs) > 0 {
				o.targets = map[string]bool{}
				for _, v := range of.Targeting.VirtualIDs {
					o.targets[v] = true
				}
			}
			switch {
			case len(of.Codes.List) > 0 && of.Codes.Pattern != "":
				fail(p+"/codes", "give either list or pattern, not both")
			case len(of.Codes.List) == 0 && of.Codes.Pattern == "":
				o.Codes.Pattern = "{offerId}-{seq}"
			}
			switch {
			case of.Stock != nil:
				o.StockN = *of.Stock
				if n := len(of.Codes.List); n > 0 && o.StockN > n {
					fail(p+"/stock", fmt.Sprintf("stock %d is more than the %d codes in codes.list", o.StockN, n))
				}
			case len(of.Codes.List) > 0:
				o.StockN = len(of.Codes.List)
			default:
				fail(p+"/stock", "stock is required unless codes.list gives the codes")
			}
			o.CouponValidFor = of.CouponValidity.D()
			if o.CouponValidFor <= 0 {
				o.CouponValidFor = 30 * 24 * time.Hour
			}
			if o.URL.Query == "" {
				o.URL.Query = "vid={virtualId}&txn={extTransactionId}"
			}
			if o.URL.Target == "" {
				o.URL.Target = "https://brand.example/offers/{offerId}"
			}
			out[ch][of.ID] = o
		}
	}
	return out
}

// Window is the offer's claim window; a zero time is an open end.
func (o *Offer) Window() (from, to time.Time) { return o.from, o.to }
