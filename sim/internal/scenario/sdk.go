package scenario

import (
	"fmt"
	"regexp"
)

// SDK is the top-level sdk: key (issue 7): how the hosted microsite
// emits reveal callbacks (SDK-3) and which issued cards the client
// issuance helper presents as a popup (SDK-1).
type SDK struct {
	// AndroidBridge is the name of the JavaScript bridge object whose
	// onReveal(string) the microsite calls (window.<AndroidBridge>).
	// Default RewardsimAndroid.
	AndroidBridge string `yaml:"androidBridge"`
	// Partners maps a channel name to the Partner of the iOS message
	// handler Handle<Partner>ScDetails; a channel not listed uses its name.
	Partners map[string]string `yaml:"partners"`
	// Popups say which issued cards the client issuance helper answers
	// with isPopup true.
	Popups []Popup `yaml:"popups"`
}

// Popup marks cards of one campaign, issued for at least MinAmount
// rupees, as wanting the modal presentation (isPopup, SDK-1).
type Popup struct {
	Channel   string  `yaml:"channel"`
	Campaign  string  `yaml:"campaign"`
	MinAmount float64 `yaml:"minAmount"`
	// Banner is the popupBanner; empty means the campaign's banner.
	Banner string `yaml:"banner"`
}

// SDKSwitches are the behaviour switches of the SDK emulation (switches.sdk).
type SDKSwitches struct {
	// EmptySessionID: an empty sessionId in client issuance is refused
	// (refuse, default) or taken like the literal single space (accept).
	EmptySessionID string `yaml:"emptySessionId"`
	// MissCallback: a reveal that wins nothing (the pool's fallback) is
	// delivered through the same reveal callbacks (deliver, default) or
	// not delivered at all (skip).
	MissCallback string `yaml:"missCallback"`
}

// DefaultAndroidBridge is sdk.androidBridge when a file names none.
const DefaultAndroidBridge = "RewardsimAndroid"

var jsIdent = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// compileSDK checks the sdk: key against the channels and campaigns.
func compileSDK(s *Scenario, fail func(p, msg string)) {
	if !jsIdent.MatchString(s.SDK.AndroidBridge) {
		fail("/sdk/androidBridge", "is not a JavaScript identifier")
	}
	names := map[string]bool{}
	for _, c := range s.Channels {
		names[c.Name] = true
	}
	for ch, p := range s.SDK.Partners {
		if !names[ch] {
			fail("/sdk/partners/"+ch, fmt.Sprintf("no channel is named %q", ch))
		}
		if !jsIdent.MatchString(p) {
			fail("/sdk/partners/"+ch, "is not usable in a message handler name (letters, digits, _ and $)")
		}
	}
	for i, p := range s.SDK.Popups {
		found := false
		for _, c := range s.CampaignsOf(p.Channel) {
			found = found || c.ID == p.Campaign
		}
		if !found {
			fail(fmt.Sprintf("/sdk/popups/%d/campaign", i), fmt.Sprintf("channel %q has no campaign %q", p.Channel, p.Campaign))
		}
	}
}

// Partner is the Partner of the channel's iOS message handler name.
func (s *Scenario) Partner(channel string) string {
	if p := s.SDK.Partners[channel]; p != "" {
		return p
	}
	return channel
}

// PopupFor finds the popup rule of a card of campaign issued for amount
// rupees in channel, if any.
func (s *Scenario) PopupFor(channel, campaign string, amount float64) (Popup, bool) {
	for _, p := range s.SDK.Popups {
		if p.Channel == channel && p.Campaign == campaign && amount >= p.MinAmount {
			return p, true
		}
	}
	return Popup{}, false
}
