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
	// Unobservable says why no call of a publisher's shows it; empty
	// when a probe reads it.
	Unobservable string
	get          func(*scenario.Scenario) string
}

// Same reports whether two values are one reading of the switch (a
// duration however it is written).
func (s Switch) Same(a, b string) bool {
	if a == b {
		return true
	}
	if s.Kind == "duration" {
		da, ea := time.ParseDuration(a)
		db, eb := time.ParseDuration(b)
		return ea == nil && eb == nil && da == db
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
	if d == 0 {
		return "0"
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// noPushes is why the webhook switches are not observable: a push is
// the vendor's to send, and a publisher's calls make none.
const noPushes = "the vendor sends a coupon-status push when it invalidates an offer, to the webhook URL it holds for the channel; " +
	"no call of a publisher's makes one, so calibrate can neither receive nor time one"

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
		get: func(s *scenario.Scenario) string { return Duration(s.Sessions.TTL.D()) }},
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
		Unobservable: "the unit shows only against a campaign's amount tiers, which the publisher side cannot list",
		get:          func(s *scenario.Scenario) string { return s.Switches.Cards.BankAmountUnit }},
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
		Unobservable: noPushes, get: func(s *scenario.Scenario) string { return s.Switches.Webhook.Retry }},
	{Name: "switches.webhook.interval", Default: "30s", Kind: "duration",
		Unobservable: noPushes, get: func(s *scenario.Scenario) string { return Duration(s.Switches.Webhook.Interval.D()) }},
	{Name: "switches.webhook.maxAttempts", Default: "4", Kind: "int",
		Unobservable: noPushes, get: func(s *scenario.Scenario) string { return itoa(s.Switches.Webhook.MaxAttempts) }},
	// 0 is the simulator's own --webhook-deadline.
	{Name: "switches.webhook.deadline", Default: "0", Kind: "duration",
		Unobservable: noPushes, get: func(s *scenario.Scenario) string { return Duration(s.Switches.Webhook.Deadline.D()) }},
	{Name: "switches.sdk.emptySessionId", Default: "refuse", Values: []string{"refuse", "accept"}, Kind: "string",
		get: func(s *scenario.Scenario) string { return s.Switches.SDK.EmptySessionID }},
	{Name: "switches.sdk.missCallback", Default: "deliver", Values: []string{"deliver", "skip"}, Kind: "string",
		Unobservable: "the reveal callbacks run in the hosted microsite's page, in a browser, and only for a card that wins nothing, which no call can ask for",
		get:          func(s *scenario.Scenario) string { return s.Switches.SDK.MissCallback }},
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
