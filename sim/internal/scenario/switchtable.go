package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// SwitchDef is one behaviour switch: a point the contract leaves open,
// with the readings a scenario may choose. SwitchTable is the one list
// of them: the control API's switch calls, the CLI's completion, the
// dashboard's selects, calibrate and the docs' switch tables are drawn
// from it or checked against it.
type SwitchDef struct {
	// Name is the switch's path in a scenario file (switches.coupons.duplicate).
	Name string
	// Default is the value a scenario that says nothing gets.
	Default string
	// Values are the allowed values; nil for a free one (Kind int or
	// duration, bounded by Min and Max).
	Values []string
	// Kind is how a scenario file writes the value: bool, int, string or duration.
	Kind string
	// Min and Max bound a free int (a count) or duration (nanoseconds);
	// Max 0 is no bound.
	Min, Max int64
	// Doc says what the switch decides, in one line.
	Doc string
	get func(*File) string
	set func(*File, string)
	// fill sets Default where a file left the switch unset (its zero).
	fill func(*File)
}

// Short is Name without its "switches." prefix (coupons.duplicate): the
// control API and the CLI take either.
func (d SwitchDef) Short() string { return strings.TrimPrefix(d.Name, "switches.") }

// Value is the switch's value in sc (its defaults applied).
func (d SwitchDef) Value(sc *Scenario) string { return d.get(&sc.File) }

// Allowed says in words what the switch takes: its values, or its kind
// and bounds.
func (d SwitchDef) Allowed() string {
	if d.Values != nil {
		return strings.Join(d.Values, ", ")
	}
	switch {
	case d.Kind == "int" && d.Max > 0:
		return fmt.Sprintf("an integer from %d to %d", d.Min, d.Max)
	case d.Kind == "int":
		return fmt.Sprintf("an integer from %d", d.Min)
	case d.Max > 0:
		return fmt.Sprintf("a duration such as 30s or 2m, at most %s", time.Duration(d.Max))
	case d.Min > 0:
		return "a positive duration such as 30s, 30m or 1h"
	}
	return "0 or a duration such as 30s, 30m or 1h"
}

// Check returns v as the switch keeps it, or why v is not one of its
// values (naming those it takes).
func (d SwitchDef) Check(v string) (string, error) {
	bad := func() (string, error) {
		return "", fmt.Errorf("switch %s: %q is not allowed; it takes %s", d.Short(), v, d.Allowed())
	}
	v = strings.TrimSpace(v)
	if d.Values != nil {
		if !slices.Contains(d.Values, v) {
			return bad()
		}
		return v, nil
	}
	switch d.Kind {
	case "int":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < d.Min || d.Max > 0 && n > d.Max {
			return bad()
		}
		return strconv.FormatInt(n, 10), nil
	default: // duration
		var du model.Duration
		if err := du.UnmarshalText([]byte(v)); err != nil || int64(du) < d.Min || d.Max > 0 && int64(du) > d.Max || du < 0 {
			return bad()
		}
		return v, nil
	}
}

// SwitchNamed finds a switch by its Name or its Short name.
func SwitchNamed(name string) (SwitchDef, bool) {
	for _, d := range SwitchTable {
		if d.Name == name || d.Short() == name {
			return d, true
		}
	}
	return SwitchDef{}, false
}

// SwitchNames is every switch's short name, in the table's order.
func SwitchNames() []string {
	out := make([]string, len(SwitchTable))
	for i, d := range SwitchTable {
		out[i] = d.Short()
	}
	return out
}

// WithSwitches is sc with the switches of over (name -> value, each
// already Checked) set: the scenario a channel runs under its switch
// overrides. sc itself is unchanged; the copy shares everything else.
func (sc *Scenario) WithSwitches(over map[string]string) (*Scenario, error) {
	if len(over) == 0 {
		return sc, nil
	}
	cp := *sc
	for name, v := range over {
		d, ok := SwitchNamed(name)
		if !ok {
			return nil, fmt.Errorf("no switch named %q", name)
		}
		d.set(&cp.File, v)
	}
	if c := cp.Switches.Cards; c.ListDefaultLimit > c.ListMaxLimit {
		return nil, fmt.Errorf("switch cards.listDefaultLimit (%d) would be larger than cards.listMaxLimit (%d)", c.ListDefaultLimit, c.ListMaxLimit)
	}
	return &cp, nil
}

// The switch kinds' accessors: each switch names its field once.

func enumSwitch(name, def, doc string, values []string, field func(*File) *string) SwitchDef {
	return SwitchDef{Name: name, Default: def, Values: values, Kind: "string", Doc: doc,
		get: func(f *File) string { return *field(f) }, set: func(f *File, v string) { *field(f) = v },
		fill: func(f *File) {
			if p := field(f); *p == "" {
				*p = def
			}
		}}
}

// boolSwitch is a plain bool: a file that says nothing reads false, so
// def is "false" and there is nothing to fill.
func boolSwitch(name, def, doc string, field func(*File) *bool) SwitchDef {
	return SwitchDef{Name: name, Default: def, Values: []string{def, strconv.FormatBool(def != "true")}, Kind: "bool", Doc: doc,
		get: func(f *File) string { return strconv.FormatBool(*field(f)) }, set: func(f *File, v string) { *field(f) = v == "true" },
		fill: func(*File) {}}
}

// ptrBoolSwitch is a bool a file may leave unset (nil reads as true).
func ptrBoolSwitch(name, doc string, field func(*File) **bool) SwitchDef {
	d := SwitchDef{Name: name, Default: "true", Values: []string{"true", "false"}, Kind: "bool", Doc: doc,
		get: func(f *File) string { return strconv.FormatBool(*field(f) == nil || **field(f)) },
		set: func(f *File, v string) { b := v == "true"; *field(f) = &b }}
	d.fill = func(f *File) {
		if *field(f) == nil {
			d.set(f, d.Default)
		}
	}
	return d
}

func intSwitch(name, def, doc string, values []string, lo, hi int64, field func(*File) *int) SwitchDef {
	d := SwitchDef{Name: name, Default: def, Values: values, Kind: "int", Min: lo, Max: hi, Doc: doc,
		get: func(f *File) string { return strconv.Itoa(*field(f)) },
		set: func(f *File, v string) { *field(f), _ = strconv.Atoi(v) }}
	d.fill = func(f *File) {
		if *field(f) == 0 {
			d.set(f, def)
		}
	}
	return d
}

func durationSwitch(name, def, doc string, lo, hi time.Duration, field func(*File) *model.Duration) SwitchDef {
	d := SwitchDef{Name: name, Default: def, Kind: "duration", Min: int64(lo), Max: int64(hi), Doc: doc,
		get: func(f *File) string { return FormatDuration(field(f).D()) },
		set: func(f *File, v string) { _ = field(f).UnmarshalText([]byte(v)) }}
	d.fill = func(f *File) {
		if *field(f) == 0 {
			d.set(f, def)
		}
	}
	return d
}

// FormatDuration writes a duration as a scenario file would (1h30m, 45m, 0).
func FormatDuration(d time.Duration) string {
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

// The values the behaviour switches take, named for the code that
// branches on them. SwitchTable lists each switch's values and default
// by these names, so the two cannot drift apart.
const (
	// tokens.expireDateFormat
	ExpireDateTimeMs = "datetime-ms"
	ExpireISO8601    = "iso8601"
	ExpireEpochMs    = "epoch-ms"

	// switches.unknownChannel
	UnknownChannelMismatch = "signature-mismatch"
	UnknownChannelDescribe = "describe"

	// switches.cards
	DateTimeReject = "reject"
	DateTimeNow    = "now"
	DateTimeAccept = "accept"

	NestedReject = "reject"
	NestedAccept = "accept"

	ChannelRefuse   = "refuse"
	ChannelUseToken = "use-token"

	SecondRevealFailure     = "failure"
	SecondRevealStatusFalse = "status-false"

	ListReject = "reject"
	ListClamp  = "clamp"

	Rupees = "rupees"
	Paisa  = "paisa"

	ResendOriginal = "original"
	ResendNew      = "new"

	NotEligibleSigned = "signed"
	NotEligibleBare   = "bare"

	// switches.coupons
	StatusInBody      = "body"
	StatusMirror      = "mirror"
	DuplicateOriginal = "original"
	DuplicateReject   = "reject"
	CrossReject       = "reject"
	CrossNew          = "new"
	CrossFirst        = "first"
	Accept            = "accept" // coinsAsNumber, coinsMismatch
	Refuse            = "refuse"

	// switches.sdk
	EmptySessionRefuse = "refuse"
	EmptySessionAccept = "accept"

	MissDeliver = "deliver"
	MissSkip    = "skip"
)

// SwitchTable is every behaviour switch, in the order of the docs' table
// (docs/scenarios.md, "Behaviour switches").
var SwitchTable = []SwitchDef{
	intSwitch("switches.failureHttpStatus", "200", "HTTP status of a bare {STATUS, ERRORSTRING} failure caused by the request (ENV-6)",
		[]string{"200", "400"}, 200, 400, func(f *File) *int { return &f.Switches.FailureHTTPStatus }),
	enumSwitch("switches.unknownChannel", UnknownChannelMismatch, "unknown CHANNELID: Signature Mismatch!, or Invalid Request! unknown CHANNELID \"X\" (ENV-6)",
		[]string{UnknownChannelMismatch, UnknownChannelDescribe}, func(f *File) *string { return &f.Switches.UnknownChannel }),
	enumSwitch("tokens.expireDateFormat", ExpireDateTimeMs, "format of expireDate (TOK-4)",
		[]string{ExpireDateTimeMs, ExpireISO8601, ExpireEpochMs}, func(f *File) *string { return &f.Tokens.ExpireDateFormat }),
	durationSwitch("tokens.referenceTTL", "1h", "reference token lifetime (TOK-4)", time.Second, 0,
		func(f *File) *model.Duration { return &f.Tokens.ReferenceTTL }),
	durationSwitch("tokens.userTTL", "30m", "user token lifetime (TOK-4)", time.Second, 0,
		func(f *File) *model.Duration { return &f.Tokens.UserTTL }),
	durationSwitch("sessions.ttl", "0", "session lifetime (0: never expires)", 0, 0,
		func(f *File) *model.Duration { return &f.Sessions.TTL }),
	boolSwitch("switches.cards.amountRequired", "false", "GetReward without amount refused (GR-5)",
		func(f *File) *bool { return &f.Switches.Cards.AmountRequired }),
	enumSwitch("switches.cards.dateandtime", DateTimeReject, "a dateandtime not DDMMYYYYHHMMSS (GR-6)",
		[]string{DateTimeReject, DateTimeNow, DateTimeAccept}, func(f *File) *string { return &f.Switches.Cards.DateAndTime }),
	enumSwitch("switches.cards.nestedAdditionalParams", NestedReject, "additionalParams as a nested object (GR-7)",
		[]string{NestedReject, NestedAccept}, func(f *File) *string { return &f.Switches.Cards.NestedAdditionalParams }),
	enumSwitch("switches.cards.channelMismatch", ChannelRefuse, "GetReward channelName other than the token's channel",
		[]string{ChannelRefuse, ChannelUseToken}, func(f *File) *string { return &f.Switches.Cards.ChannelMismatch }),
	intSwitch("switches.cards.invalidRequestStatus", "400", "HTTP status of a malformed GetReward or listing request",
		[]string{"400", "200"}, 200, 400, func(f *File) *int { return &f.Switches.Cards.InvalidRequestStatus }),
	enumSwitch("switches.cards.secondReveal", SecondRevealFailure, "second reveal: a bare failure, or a signed {status false, isAlreadyRewarded true} (REV-2)",
		[]string{SecondRevealFailure, SecondRevealStatusFalse}, func(f *File) *string { return &f.Switches.Cards.SecondReveal }),
	ptrBoolSwitch("switches.cards.fetchSignRequired", "FetchRewardInfo needs SIGN (REV-5)",
		func(f *File) **bool { return &f.Switches.Cards.FetchSignRequired }),
	ptrBoolSwitch("switches.cards.fetchAnswerSigned", "FetchRewardInfo's answer is signed (REV-5)",
		func(f *File) **bool { return &f.Switches.Cards.FetchAnswerSigned }),
	intSwitch("switches.cards.listDefaultLimit", "10", "listing limit when none is sent (LIST-1)", nil, 1, MaxListLimit,
		func(f *File) *int { return &f.Switches.Cards.ListDefaultLimit }),
	intSwitch("switches.cards.listMaxLimit", "50", "largest listing limit (LIST-1)", nil, 1, MaxListLimit,
		func(f *File) *int { return &f.Switches.Cards.ListMaxLimit }),
	enumSwitch("switches.cards.listBadValues", ListReject, "bad page/limit: HTTP 400, or corrected (LIST-1)",
		[]string{ListReject, ListClamp}, func(f *File) *string { return &f.Switches.Cards.ListBadValues }),
	enumSwitch("switches.cards.bankAmountUnit", Rupees, "GetScratchCardForBank amount unit; tiers are thresholds (BANK-2)",
		[]string{Rupees, Paisa}, func(f *File) *string { return &f.Switches.Cards.BankAmountUnit }),
	enumSwitch("switches.cards.bankResend", ResendOriginal, "resent extTransactionId: the original card or a new one (BANK-3)",
		[]string{ResendOriginal, ResendNew}, func(f *File) *string { return &f.Switches.Cards.BankResend }),
	enumSwitch("switches.cards.bankNotEligible", NotEligibleSigned, "not-eligible answer signed or a bare body (BANK-4)",
		[]string{NotEligibleSigned, NotEligibleBare}, func(f *File) *string { return &f.Switches.Cards.BankNotEligible }),
	enumSwitch("switches.coupons.httpStatus", StatusInBody, "HTTP 200 always, or the HTTP status mirrors the body status (CPN-3)",
		[]string{StatusInBody, StatusMirror}, func(f *File) *string { return &f.Switches.Coupons.HTTPStatus }),
	enumSwitch("switches.coupons.duplicate", DuplicateOriginal, "a duplicate extTransactionId: the earlier result, or 409 DUPLICATE_TRANSACTION (CPN-5)",
		[]string{DuplicateOriginal, DuplicateReject}, func(f *File) *string { return &f.Switches.Coupons.Duplicate }),
	enumSwitch("switches.coupons.crossOffer", CrossReject, "the same extTransactionId on another offer (CPN-5)",
		[]string{CrossReject, CrossNew, CrossFirst}, func(f *File) *string { return &f.Switches.Coupons.CrossOffer }),
	boolSwitch("switches.coupons.orderId", "false", "data.orderId in the success answer (CPN-7)",
		func(f *File) *bool { return &f.Switches.Coupons.OrderID }),
	enumSwitch("switches.coupons.coinsAsNumber", Refuse, "coinsUsed sent as a JSON number",
		[]string{Refuse, Accept}, func(f *File) *string { return &f.Switches.Coupons.CoinsAsNumber }),
	enumSwitch("switches.coupons.coinsMismatch", Accept, "coinsUsed different from the offer's price",
		[]string{Accept, Refuse}, func(f *File) *string { return &f.Switches.Coupons.CoinsMismatch }),
	// The retry kinds are the webhook package's (RetryExponential, RetryNone, RetryFixed).
	enumSwitch("switches.webhook.retry", "exponential", "retry policy of coupon-status pushes (WH-2)",
		[]string{"exponential", "none", "fixed"}, func(f *File) *string { return &f.Switches.Webhook.Retry }),
	durationSwitch("switches.webhook.interval", "30s", "wait before the first retry of a push (WH-2)", time.Millisecond, 0,
		func(f *File) *model.Duration { return &f.Switches.Webhook.Interval }),
	intSwitch("switches.webhook.maxAttempts", "4", "attempts of a push in all, the first included (WH-2)", nil, 1, 20,
		func(f *File) *int { return &f.Switches.Webhook.MaxAttempts }),
	durationSwitch("switches.webhook.deadline", "0", "how long the receiver has to answer a push (0: the simulator's --webhook-deadline) (WH-2)", 0, MaxWebhookDeadline,
		func(f *File) *model.Duration { return &f.Switches.Webhook.Deadline }),
	enumSwitch("switches.sdk.emptySessionId", EmptySessionRefuse, "SDK issuance with an empty sessionId (SDK-1)",
		[]string{EmptySessionRefuse, EmptySessionAccept}, func(f *File) *string { return &f.Switches.SDK.EmptySessionID }),
	enumSwitch("switches.sdk.missCallback", MissDeliver, "a reveal that wins nothing goes through the reveal callbacks (SDK-3)",
		[]string{MissDeliver, MissSkip}, func(f *File) *string { return &f.Switches.SDK.MissCallback }),
	intSwitch("switches.limits.status", "503", "HTTP status of a call refused by its channel's limit, its body the endpoint's platform failure (docs/limits.md)",
		limitStatuses, 200, 503, func(f *File) *int { return &f.Switches.Limits.Status }),
	ptrBoolSwitch("switches.limits.retryAfter", "a call refused by its channel's limit says Retry-After, in whole seconds (docs/limits.md)",
		func(f *File) **bool { return &f.Switches.Limits.RetryAfter }),
}

// SwitchState is one behaviour switch for a channel: what it takes, its
// default, what the governing scenario says, the overrides set and the
// value in force (schemas/control.switch.answer.json).
type SwitchState struct {
	Name         string   `json:"name"`
	Kind         string   `json:"kind"`
	Values       []string `json:"values,omitempty"`
	Allowed      string   `json:"allowed"`
	Default      string   `json:"default"`
	Scenario     string   `json:"scenario"`
	EveryChannel string   `json:"everyChannel,omitempty"`
	Override     string   `json:"override,omitempty"`
	Value        string   `json:"value"`
	Doc          string   `json:"doc"`
}

// SwitchStates is every switch of channel ("" every channel's), in the
// table's order.
func (r *Registry) SwitchStates(channel string) []SwitchState {
	sn := r.cur.Load()
	base, inForce := sn.activeFor(channel), sn.governing(channel)
	out := make([]SwitchState, 0, len(SwitchTable))
	for _, d := range SwitchTable {
		st := SwitchState{Name: d.Name, Kind: d.Kind, Values: d.Values, Allowed: d.Allowed(), Default: d.Default,
			Scenario: d.Value(base), Value: d.Value(inForce), Doc: d.Doc, EveryChannel: sn.switches[""][d.Name]}
		if channel != "" {
			st.Override = sn.switches[channel][d.Name]
		}
		out = append(out, st)
	}
	return out
}
