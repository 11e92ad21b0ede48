package cards

import (
	"net/url"
	"slices"
	"strconv"

	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

// Tracking kinds and the paths that record them on the rewards host (TRK-1).
const (
	Impression     = "impression"
	Click          = "click"
	ImpressionPath = "/track/impression"
	ClickPath      = "/track/click"
)

// Where a click URL was handed out (the from= of the URL).
const (
	FromCard   = "card"   // clicktrack[] of GetReward
	FromReward = "reward" // clickTrack[] of the revealed reward
)

// TrackURL is an absolute tracking URL on the simulator.
func TrackURL(base, path, channel string, id uint64, from string) string {
	u := base + path + "?channel=" + url.QueryEscape(channel)
	if from != "" {
		u += "&from=" + url.QueryEscape(from)
	}
	return u + "&rewardId=" + strconv.FormatUint(id, 10)
}

// Details are the 2.4 detail fields a revealed card carries.
type Details struct {
	model.Offer
	IsSeen bool `json:"isSeen"`
}

// WireCard is a card of rewards[] (2.4): the detail fields appear only
// once the card is revealed.
type WireCard struct {
	RewardID          uint64   `json:"rewardId"`
	IsAlreadyRewarded bool     `json:"isAlreadyRewarded"`
	CreatedDateTime   string   `json:"createdDateTime"`
	TrackLink         []string `json:"trackLink"`
	*Details
}

// Wire renders cards in listing order (unscratched first, then revealed,
// each by rewardId) with their click-tracking URLs.
func Wire(base string, sc *scenario.Scenario, cards []model.Card) (out []WireCard, clicks []string) {
	sorted := append([]model.Card(nil), cards...)
	slices.SortStableFunc(sorted, ListingCmp)
	out, clicks = make([]WireCard, 0, len(sorted)), make([]string, 0, len(sorted))
	for _, c := range sorted {
		w := WireCard{
			RewardID:          c.RewardID,
			IsAlreadyRewarded: c.Revealed(),
			CreatedDateTime:   c.CreatedAt.In(sc.Location).Format(DateTimeMs),
			TrackLink:         []string{TrackURL(base, ImpressionPath, c.Channel, c.RewardID, FromCard)},
		}
		if c.Reward != nil {
			w.Details = &Details{Offer: AbsoluteOffer(base, c.Reward.Offer), IsSeen: true}
		}
		out = append(out, w)
		clicks = append(clicks, TrackURL(base, ClickPath, c.Channel, c.RewardID, FromCard))
	}
	return out, clicks
}

// Revealed is the revealed reward of FetchRewardInfo (2.5). The contract
// shows no field names: these are the simulator's reading, reusing the
// detail names of 2.4.
type Revealed struct {
	Status   bool   `json:"status"`
	Message  string `json:"message"`
	RewardID uint64 `json:"rewardId"`
	model.Offer
	IsSeen           bool     `json:"isSeen"`
	IsFallback       bool     `json:"isFallback"`
	RevealedDateTime string   `json:"revealedDateTime"`
	ClickTrack       []string `json:"clickTrack"`
}

// RevealedWire renders a revealed card's reward.
func RevealedWire(base string, sc *scenario.Scenario, c model.Card) Revealed {
	return Revealed{
		Status: true, Message: "success", RewardID: c.RewardID,
		Offer: AbsoluteOffer(base, c.Reward.Offer), IsSeen: true, IsFallback: c.Reward.Fallback,
		RevealedDateTime: c.Reward.RevealedAt.In(sc.Location).Format(DateTimeMs),
		ClickTrack:       []string{TrackURL(base, ClickPath, c.Channel, c.RewardID, FromReward)},
	}
}

// AlreadyRevealed is the second-reveal answer of switches.cards.secondReveal status-false.
type AlreadyRevealed struct {
	Status            bool   `json:"status"`
	Message           string `json:"message"`
	RewardID          uint64 `json:"rewardId"`
	IsAlreadyRewarded bool   `json:"isAlreadyRewarded"`
}

// DefaultBanner is the banner of a card whose campaign names none; the
// simulator serves it (generated imagery under /assets/img/).
const DefaultBanner = "/assets/img/scratch-card-banner.svg"

// Banner is the banner of card's campaign, or DefaultBanner.
func Banner(sc *scenario.Scenario, card model.Card) string {
	for _, camp := range sc.CampaignsOf(card.Channel) {
		if camp.ID == card.CampaignID && camp.Banner != "" {
			return camp.Banner
		}
	}
	return DefaultBanner
}

// Absolute makes a root-relative URL (a scenario's "/assets/..." imagery)
// absolute on base, so every URL handed to a publisher is absolute; other
// URLs pass unchanged. The simulator serves its own resources (assets,
// tracking, coupon redirects) on every public host, so any base works.
func Absolute(base, u string) string {
	if rootRelative(u) {
		return base + u
	}
	return u
}

// rootRelative reports whether u is a path on this host ("/assets/..."),
// not a URL of its own or one on another host ("//cdn/...").
func rootRelative[S string | []byte](u S) bool {
	return len(u) > 0 && u[0] == '/' && (len(u) == 1 || u[1] != '/')
}

// AbsoluteOffer makes the offer's image and link URLs absolute on base:
// every answer handed to an app carries absolute URLs.
func AbsoluteOffer(base string, o model.Offer) model.Offer {
	for _, f := range []*string{&o.CouponImage, &o.BannerDisplayURL, &o.IconImage, &o.CoverImage, &o.PromoLink} {
		*f = Absolute(base, *f)
	}
	return o
}
