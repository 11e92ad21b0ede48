package model

import "time"

// Offer carries the detail fields of a revealed card (section 2.4). The
// contract does not show their types: the simulator uses strings.
type Offer struct {
	OfferTitle       string `yaml:"offerTitle" json:"offerTitle"`
	Description      string `yaml:"description" json:"description"`
	Terms            string `yaml:"terms" json:"terms"`
	CouponCode       string `yaml:"couponCode" json:"couponCode"`
	EndDate          string `yaml:"endDate" json:"endDate"`
	CouponType       string `yaml:"couponType" json:"couponType"`
	CouponImage      string `yaml:"couponImage" json:"couponImage"`
	RedeemSteps      string `yaml:"redeemSteps" json:"redeemSteps"`
	BannerDisplayURL string `yaml:"bannerDisplayUrl" json:"bannerDisplayUrl"`
	IconImage        string `yaml:"iconImage" json:"iconImage"`
	Details          string `yaml:"details" json:"details"`
	SiteID           string `yaml:"siteId" json:"siteId"`
	SiteName         string `yaml:"siteName" json:"siteName"`
	CoverImage       string `yaml:"coverImage" json:"coverImage"`
	PromoLink        string `yaml:"promoLink" json:"promoLink"`
	BgColor          string `yaml:"bgColor" json:"bgColor"`
}

// Card is a scratch card as stored. Reward is nil until the first reveal.
type Card struct {
	RewardID         uint64            `json:"rewardId"`
	Channel          string            `json:"channel"`
	VirtualID        string            `json:"virtualId"`
	CampaignID       string            `json:"campaignId"`
	Pool             string            `json:"pool"`
	Source           string            `json:"source"`
	ExtTransactionID string            `json:"extTransactionId"`
	Trigger          string            `json:"trigger,omitempty"`
	SubTrigger       string            `json:"subTrigger,omitempty"`
	Amount           *float64          `json:"amount,omitempty"`
	DateAndTime      string            `json:"dateandtime,omitempty"`
	Params           map[string]string `json:"params,omitempty"`
	CreatedAt        time.Time         `json:"createdAt"`
	ExpiresAt        time.Time         `json:"expiresAt,omitzero"`
	Reward           *Reward           `json:"reward,omitempty"`
}

// Revealed reports whether the card's reward has been chosen.
func (c Card) Revealed() bool { return c.Reward != nil }

// Reward is what the first reveal chose from the pool (REV-1, REV-6).
type Reward struct {
	Offer
	EntryID    string    `json:"entryId"`
	Fallback   bool      `json:"fallback"`
	RevealedAt time.Time `json:"revealedAt"`
}

// Notification is the push the service would send to a deviceToken when
// GetScratchCardForBank issues a card; the simulator records it.
type Notification struct {
	Seq              uint64    `json:"seq"`
	Channel          string    `json:"channel"`
	DeviceToken      string    `json:"deviceToken"`
	VirtualID        string    `json:"virtualId"`
	RewardID         uint64    `json:"rewardId"`
	CampaignID       string    `json:"campaignId"`
	ExtTransactionID string    `json:"extTransactionId"`
	Title            string    `json:"title"`
	DeepLink         string    `json:"deepLink"`
	At               time.Time `json:"at"`
}

// TrackEvent is one recorded GET of a tracking URL (TRK-1).
type TrackEvent struct {
	Kind     string    `json:"kind"` // impression or click
	Source   string    `json:"source"`
	At       time.Time `json:"at"`
	RewardID uint64    `json:"rewardId"`
}

// OfferFields is how many strings an Offer has.
const OfferFields = 16

// CardView is what the card listing shows of a card, its strings as S:
// string for a decoded Card (ViewOf), []byte for a stored record read in
// place in its copy (state.Store.UserCardPage), so one encoder renders both.
type CardView[S string | []byte] struct {
	RewardID  uint64
	Channel   S
	CreatedAt time.Time
	Revealed  bool
	// Offer is the reward's offer, Offer's strings in their field order;
	// all empty while the card is unscratched.
	Offer [OfferFields]S
	// OfferVerbatim says every string of Offer is written in JSON as it
	// is, between quotes (jsonw.Verbatim): the store keeps that with a
	// card it writes, and the listing then copies the strings instead
	// of scanning them for escapes. False says nothing.
	OfferVerbatim bool
}

// ViewOf is c as the listing shows it.
func ViewOf(c *Card) CardView[string] {
	v := CardView[string]{RewardID: c.RewardID, Channel: c.Channel, CreatedAt: c.CreatedAt, Revealed: c.Revealed()}
	if r := c.Reward; r != nil {
		v.Offer = r.Offer.Strings()
	}
	return v
}

// Strings are o's strings in their field order.
func (o *Offer) Strings() [OfferFields]string {
	return [...]string{o.OfferTitle, o.Description, o.Terms, o.CouponCode, o.EndDate, o.CouponType, o.CouponImage, o.RedeemSteps,
		o.BannerDisplayURL, o.IconImage, o.Details, o.SiteID, o.SiteName, o.CoverImage, o.PromoLink, o.BgColor}
}

// BytesView is v with its strings copied to byte slices: a card decoded
// from JSON shown as a stored record is.
func BytesView(v CardView[string]) CardView[[]byte] {
	out := CardView[[]byte]{RewardID: v.RewardID, Channel: []byte(v.Channel), CreatedAt: v.CreatedAt, Revealed: v.Revealed}
	for i, s := range v.Offer {
		out.Offer[i] = []byte(s)
	}
	return out
}
