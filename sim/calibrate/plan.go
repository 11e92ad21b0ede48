package calibrate

import (
	"fmt"
	"io"
	"strings"
)

// Probe is the fewest calls that decide a few switches.
type Probe struct {
	Name    string
	Decides []string
	// Writes marks a probe that issues a card, claims a coupon or burns
	// stock; WritesWhat says which.
	Writes     bool
	WritesWhat string
	// Waits says what a probe waits out; it runs only with Options.Wait.
	Waits string
	// Calls lists each call and what it decides (the dry run's plan).
	Calls []string
	run   func(*run) error
}

// Plan is every probe, read-only ones first, in the order they run.
func Plan() []Probe {
	return []Probe{
		{Name: "tokens", Decides: []string{"tokens.expireDateFormat", "tokens.referenceTTL", "tokens.userTTL"}, run: probeTokens, Calls: []string{
			"POST rewards /api/getSecuredReferenceToken: expireDate's format; referenceTTL from expireDate against the answer's Date",
			"POST rewards /api/GetAuthToken for a new virtualId: userTTL the same way",
		}},
		{Name: "bad-sign", Decides: []string{"switches.failureHttpStatus"}, run: probeBadSign, Calls: []string{
			"POST rewards /api/getSecuredReferenceToken with a SIGN made over other BDATA: the HTTP status of the bare failure",
		}},
		{Name: "unknown-channel", Decides: []string{"switches.unknownChannel"}, run: probeUnknownChannel, Calls: []string{
			"POST rewards /api/getSecuredReferenceToken from a CHANNELID the service does not know: its ERRORSTRING",
		}},
		{Name: "getreward-refusals", Decides: []string{"switches.cards.invalidRequestStatus", "switches.cards.amountRequired",
			"switches.cards.dateandtime", "switches.cards.nestedAdditionalParams", "switches.cards.channelMismatch"}, run: probeGetRewardRefusals, Calls: []string{
			"POST rewards /api/GetReward, a trigger no campaign answers: the not-eligible answer every variant below is read against (no card)",
			"POST rewards /api/GetReward without virtualId: the HTTP status of a malformed request",
			"POST rewards /api/GetReward without amount: refused or not eligible",
			"POST rewards /api/GetReward with dateandtime not DDMMYYYYHHMMSS: refused or not eligible",
			"POST rewards /api/GetReward with additionalParams as an object: refused or not eligible",
			"POST rewards /api/GetReward with another channelName than the token's: refused or not eligible",
		}},
		{Name: "fetch-sign", Decides: []string{"switches.cards.fetchSignRequired"}, run: probeFetchSign, Calls: []string{
			"POST rewards /api/GetAuthToken (shared with the listing probe)",
			"POST rewards /api/FetchRewardInfo without SIGN, for a card that does not exist: Signature Mismatch! or no such card",
		}},
		{Name: "listing", Decides: []string{"switches.cards.listDefaultLimit", "switches.cards.listBadValues", "switches.cards.listMaxLimit"}, run: probeListing, Calls: []string{
			"GET rewards /api/GetAllScratchCardsByUserId: the limit applied when none is given",
			"GET ...?limit=0: refused, or corrected",
			"GET ...?limit=1000000: the limit it was clamped to, or the maximum its refusal names (checked with one more call; else a bisection within the budget)",
		}},
		{Name: "bank-not-eligible", Decides: []string{"switches.cards.bankNotEligible"}, run: probeBankNotEligible, Calls: []string{
			"POST bank /api/GetScratchCardForBank for a campaignId that does not exist: the not-eligible answer signed or bare (no card)",
		}},
		{Name: "sdk-empty-session", Decides: []string{"switches.sdk.emptySessionId"}, run: probeSDKEmptySession, Calls: []string{
			"POST bank /sdk/getScratchCardDetails with an empty sessionId and a trigger no campaign answers: refused or not eligible (no card)",
		}},
		{Name: "coupon-errors", Decides: []string{"switches.coupons.httpStatus", "switches.coupons.coinsAsNumber"}, run: probeCouponErrors, Calls: []string{
			"POST hotdeals /api/fetchCouponCode for an offer that does not exist, coinsUsed a JSON number: refused for the number or for the offer; the HTTP status against the body's",
		}},
		{Name: "card-reveal", Writes: true, WritesWhat: "issues a scratch card and reveals it", Decides: []string{"switches.cards.fetchAnswerSigned", "switches.cards.secondReveal"}, run: probeCardReveal, Calls: []string{
			"POST rewards /api/GetReward with --trigger: issues a card (WRITES)",
			"POST rewards /api/GetAuthToken for the card's user",
			"POST rewards /api/FetchRewardInfo: the first reveal's answer signed or not (WRITES: picks the reward)",
			"POST rewards /api/FetchRewardInfo again: the second reveal's answer",
		}},
		{Name: "bank-resend", Writes: true, WritesWhat: "issues a scratch card", Decides: []string{"switches.cards.bankResend"}, run: probeBankResend, Calls: []string{
			"POST bank /api/GetScratchCardForBank for --campaign: issues a card (WRITES)",
			"POST bank /api/GetScratchCardForBank, the same extTransactionId: the same card or a new one (WRITES)",
		}},
		{Name: "coupon-claims", Writes: true, WritesWhat: "claims coupons and burns stock", Decides: []string{"switches.coupons.orderId", "switches.coupons.duplicate", "switches.coupons.crossOffer"}, run: probeCouponClaims, Calls: []string{
			"POST hotdeals /api/getCatalogue: the offers' prices, and a second offer",
			"POST hotdeals /api/fetchCouponCode for --offer: a coupon, with data.orderId or not (WRITES)",
			"POST hotdeals /api/fetchCouponCode, the same extTransactionId: the earlier coupon or DUPLICATE_TRANSACTION",
			"POST hotdeals /api/fetchCouponCode, the same extTransactionId on the second offer: refused, the first coupon, or a new claim (WRITES)",
		}},
		{Name: "coupon-price", Writes: true, WritesWhat: "claims a coupon and burns stock", Decides: []string{"switches.coupons.coinsMismatch"}, run: probeCouponPrice, Calls: []string{
			"POST hotdeals /api/fetchCouponCode for --offer with coinsUsed one more than its price: refused, or a coupon (WRITES)",
		}},
		{Name: "session-ttl", Waits: "a session's lifetime shows only once it has run out", Decides: []string{"sessions.ttl"}, run: probeSessionTTL, Calls: []string{
			"POST bank /api/GenerateSessionInfoV2 for a new virtualId: a session",
			"GET bank /microsite with a sessionId the service never issued: the page a closed session gets",
			"GET bank /microsite with the session: the page an open session gets",
			"GET bank /microsite with the session again, spaced over --wait: the first closed page dates the session's end (WAITS)",
		}},
	}
}

// WritePlan prints the plan: each probe, its calls and what they decide,
// the write probes marked, and what no probe reads.
func WritePlan(w io.Writer, allowWrites bool, budget int) {
	total := 0
	for _, p := range Plan() {
		mark := ""
		if p.Writes {
			mark = "  [writes: " + p.WritesWhat
			if !allowWrites {
				mark += "; skipped without --allow-writes"
			}
			mark += "]"
		}
		if p.Waits != "" {
			mark = "  [waits: " + p.Waits + "; for up to --wait, skipped without it]"
		}
		fmt.Fprintf(w, "probe %s%s\n  decides: %s\n", p.Name, mark, strings.Join(p.Decides, ", "))
		for _, c := range p.Calls {
			fmt.Fprintf(w, "  - %s\n", c)
		}
		if !p.Writes || allowWrites {
			total += len(p.Calls)
		}
	}
	fmt.Fprintln(w, "not observable from a publisher's side:")
	for _, s := range Switches {
		if s.Unobservable != "" {
			fmt.Fprintf(w, "  %s: %s\n", s.Name, s.Unobservable)
		}
	}
	for _, v := range refusalVariants {
		if v.alike != "" {
			fmt.Fprintf(w, "  %s, %s against %s (%s is told from both): %s\n", v.name, v.taken, v.alike, v.refuse, v.alikeWhy)
		}
	}
	fmt.Fprintf(w, "about %d calls planned (shared tokens are fetched once; the listing's maximum may take more), budget %d; no call made (dry run)\n", total, budget)
}
