package calibrate

import (
	"strconv"
	"strings"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

// Switch is one behaviour switch: a point the contract leaves open, as a
// scenario names it (docs/scenarios.md, "Behaviour switches").
type Switch struct {
	// Name is the switch's path in a scenario file (switches.cards.amountRequired).
	Name    string
	Default string
	// Values are the documented values; nil for a free value (a
	// duration, an integer).
	Values []string
	// Kind is how the overlay writes the value: "bool", "int" or "string".
	Kind string
	// NotProbed says why no probe reads it; empty when one does.
	NotProbed string
	get       func(*scenario.Scenario) string
}

// Same reports whether two readings of the switch answer alike to a
// publisher: switches.cards.dateandtime "now" and "accept" show no
// difference in any answer (the card keeps the date it was sent, and no
// answer shows it), so they are one reading here.
func (s Switch) Same(a, b string) bool {
	if a == b {
		return true
	}
	switch s.Kind {
	case "duration":
		da, ea := time.ParseDuration(a)
		db, eb := time.ParseDuration(b)
		return ea == nil && eb == nil && da == db
	}
	if s.Name == "switches.cards.dateandtime" {
		taken := func(v string) bool { return v == scenario.DateTimeNow || v == scenario.DateTimeAccept }
		return taken(a) && taken(b)
	}
	return false
}

// Value is the switch's value in a compiled scenario (its defaults applied).
func (s Switch) Value(sc *scenario.Scenario) string { return s.get(sc) }

func itoa(n int) string  { return strconv.Itoa(n) }
func btoa(b bool) string { return strconv.FormatBool(b) }
func ptrb(b *bool) string {
	if b == nil {
		return "true"
	}
	return btoa(*b)
}

// Duration renders a duration the way a scenario file would (1h30m, 45m).
func Duration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Switches is every behaviour switch, in the order of the docs' table.
var Switches = []Switch{
	{Name: "switches.failureHttpStatus", Default: "200", Values: []string{"200", "400"}, Kind: "int",
		get: func(s *scenario.Scenario) string { return itoa(s.Switches.FailureHTTPStatus) }},
	{Name: "switches.unknownChannel", Default: "signature-mismatch", Values: []string{"signature-mismatch", "describe"}, Kind: "string",
		get: func(s *scenario.Scenario) string { return s.Switches.UnknownChannel }},
	{Name: "tokens.expireDateFormat", Default: "datetime-ms", Values: []string{"datetime-ms", "iso8601", "epoch-ms"}, Kind: "string",
		get: func(s *scenario.Scenario) string { return s.Tokens.ExpireDateFormat }},
	{Name: "tokens.referenceTTL", Default: "1h", Kind: "duration",
		get: func(s *scenario.Scenario) string { return Duration(s.Tokens.ReferenceTTL.D()) }},
	{Name: "tokens.userTTL", Default: "30m", Kind: "duration",
		get: func(s *scenario.Scenario) string { return Duration(s.Tokens.UserTTL.D()) }},
	{Name: "sessions.ttl", Default: "0", Kind: "duration",
		NotProbed: "a session's lifetime shows only once it has run out: calibrate does not wait",
		get:       func(s *scenario.Scenario) string { return Duration(s.Sessions.TTL.D()) }},
	{Name: "switches.cards.amountRequired", Default: "false", Values: []string{"false", "true"}, Kind: "bool",
		get: func(s *scenario.Scenario) string { return btoa(s.Switches.Cards.AmountRequired) }},
	{Name: "switches.cards.dateandtime", Default: "reject", Values: []string{"reject", "now", "accept"}, Kind: "string",
		get: func(s *scenario.Scenario) string { return s.Switches.Cards.DateAndTime }},
	{Name: "switches.cards.nestedAdditionalParams", Default: "reject", Values: []string{"reject", "accept"}, Kind: "string",
		get: func(s *scenario.Scenario) string { return s.Switches.Cards.NestedAdditionalParams }},
	{Name: "switches.cards.channelMismatch", Default: "refuse", Values: []string{"refuse", "use-token"}, Kind: "string",
		get: func(s *scenario.Scenario) string { return s.Switches.Cards.ChannelMismatch }},
	{Name: "switches.cards.invalidRequestStatus", Default: "400", Values: []string{"400", "200"}, Kind: "int",
		get: func(s *scenario.Scenario) string { return itoa(s.Switches.Cards.InvalidRequestStatus) }},
	{Name: "switches.cards.secondReveal", Default: "failure", Values: []string{"failure", "status-false"}, Kind: "string",
		get: func(s *scenario.Scenario) string { return s.Switches.Cards.SecondReveal }},
	{Name: "switches.cards.fetchSignRequired", Default: "true", Values: []string{"true", "false"}, Kind: "bool",
		get: func(s *scenario.Scenario) string { return ptrb(s.Switches.Cards.FetchSignRequired) }},
	{Name: "switches.cards.fetchAnswerSigned", Default: "true", Values: []string{"true", "false"}, Kind: "bool",
		get: func(s *scenario.Scenario) string { return ptrb(s.Switches.Cards.FetchAnswerSigned) }},
	{Name: "switches.cards.listDefaultLimit", Default: "10", Kind: "int",
		get: func(s *scenario.Scenario) string { return itoa(s.Switches.Cards.ListDefaultLimit) }},
	{Name: "switches.cards.listMaxLimit", Default: "50", Kind: "int",
		get: func(s *scenario.Scenario) string { return itoa(s.Switches.Cards.ListMaxLimit) }},
	{Name: "switches.cards.listBadValues", Default: "reject", Values: []string{"reject", "clamp"}, Kind: "string",
		get: func(s *scenario.Scenario) string { return s.Switches.Cards.ListBadValues }},
	{Name: "switches.cards.bankAmountUnit", Default: "rupees", Values: []string{"rupees", "paisa"}, Kind: "string",
		NotProbed: "the unit shows only against a campaign's amount tiers, which the publisher side cannot list",
		get:       func(s *scenario.Scenario) string { return s.Switches.Cards.BankAmountUnit }},
	{Name: "switches.cards.bankResend", Default: "original", Values: []string{"original", "new"}, Kind: "string",
		get: func(s *scenario.Scenario) string { return s.Switches.Cards.BankResend }},
	{Name: "switches.cards.bankNotEligible", Default: "signed", Values: []string{"signed", "bare"}, Kind: "string",
		get: func(s *scenario.Scenario) string { return s.Switches.Cards.BankNotEligible }},
	{Name: "switches.coupons.httpStatus", Default: "body", Values: []string{"body", "mirror"}, Kind: "string",
		get: func(s *scenario.Scenario) string { return s.Switches.Coupons.HTTPStatus }},
	{Name: "switches.coupons.duplicate", Default: "original", Values: []string{"original", "reject"}, Kind: "string",
		get: func(s *scenario.Scenario) string { return s.Switches.Coupons.Duplicate }},
	{Name: "switches.coupons.crossOffer", Default: "reject", Values: []string{"reject", "new", "first"}, Kind: "string",
		get: func(s *scenario.Scenario) string { return s.Switches.Coupons.CrossOffer }},
	{Name: "switches.coupons.orderId", Default: "false", Values: []string{"false", "true"}, Kind: "bool",
		get: func(s *scenario.Scenario) string { return btoa(s.Switches.Coupons.OrderID) }},
	{Name: "switches.coupons.coinsAsNumber", Default: "refuse", Values: []string{"refuse", "accept"}, Kind: "string",
		get: func(s *scenario.Scenario) string { return s.Switches.Coupons.CoinsAsNumber }},
	{Name: "switches.coupons.coinsMismatch", Default: "accept", Values: []string{"accept", "refuse"}, Kind: "string",
		get: func(s *scenario.Scenario) string { return s.Switches.Coupons.CoinsMismatch }},
	{Name: "switches.webhook.retry", Default: "exponential", Values: []string{"exponential", "none", "fixed"}, Kind: "string",
		NotProbed: "pushes go to the webhook URL the vendor holds for the channel, not to calibrate",
		get:       func(s *scenario.Scenario) string { return s.Switches.Webhook.Retry }},
	{Name: "switches.webhook.interval", Default: "30s", Kind: "duration",
		NotProbed: "pushes go to the webhook URL the vendor holds for the channel, not to calibrate",
		get:       func(s *scenario.Scenario) string { return Duration(s.Switches.Webhook.Interval.D()) }},
	{Name: "switches.webhook.maxAttempts", Default: "4", Kind: "int",
		NotProbed: "pushes go to the webhook URL the vendor holds for the channel, not to calibrate",
		get:       func(s *scenario.Scenario) string { return itoa(s.Switches.Webhook.MaxAttempts) }},
	{Name: "switches.sdk.emptySessionId", Default: "refuse", Values: []string{"refuse", "accept"}, Kind: "string",
		get: func(s *scenario.Scenario) string { return s.Switches.SDK.EmptySessionID }},
	{Name: "switches.sdk.missCallback", Default: "deliver", Values: []string{"deliver", "skip"}, Kind: "string",
		NotProbed: "the reveal callbacks run in the hosted microsite's page, in a browser",
		get:       func(s *scenario.Scenario) string { return s.Switches.SDK.MissCallback }},
}

// SwitchByName finds a switch of Switches.
func SwitchByName(name string) (Switch, bool) {
	for _, s := range Switches {
		if s.Name == name {
			return s, true
		}
	}
	return Switch{}, false
}
