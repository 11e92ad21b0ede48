// Package report is the conformance report (SIM-6): pure functions from
// journal entries to findings, each naming the contract clause the
// publisher under test broke, a severity, a count and one example
// exchange. It reads entries only; it never calls the simulator.
package report

import (
	"path"
	"sort"
	"strings"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
)

// Severity of a finding. `rewardsim report --fail-on` fails on findings of
// the given severity or a worse one.
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Info    Severity = "info"
)

var rank = map[Severity]int{Info: 1, Warning: 2, Error: 3}

// AtLeast reports whether s is at least as severe as min.
func (s Severity) AtLeast(min Severity) bool { return rank[s] >= rank[min] }

// Valid reports whether s is a known severity.
func (s Severity) Valid() bool { return rank[s] > 0 }

// Rule is one check of the report.
type Rule struct {
	ID       string   `json:"id"`
	Clause   string   `json:"clause"`
	Severity Severity `json:"severity"`
	Title    string   `json:"title"`
	Advice   string   `json:"advice"`
	// Reading, when set, says the rule checks the simulator's own reading
	// of a point the contract leaves open, and names that reading.
	Reading string `json:"reading,omitempty"`
}

// Rules lists every check, in report order.
var Rules = []Rule{
	{"sign-over-decoded-json", "ENV-2", Error, "SIGN was computed over the decoded JSON instead of the base64 BDATA string", "Sign the base64 BDATA string itself (SHA256withRSA), not the JSON it decodes to.", ""},
	{"wrong-token-type", "AUTH-1", Error, "A user token was sent to GetReward, or a reference token to a user-token endpoint", "GetReward takes the reference token; FetchRewardInfo and GetAllScratchCardsByUserId take the user token of GetAuthToken.", ""},
	{"nested-additional-params", "GR-7", Error, "additionalParams was sent as a nested JSON object instead of a JSON-encoded string", `Encode additionalParams as a string: "additionalParams": "{\"city\":\"Pune\"}".`, ""},
	{"dateandtime-format", "GR-6", Error, "dateandtime is not in the format DDMMYYYYHHMMSS", "Send dateandtime as 14 digits, day first: 15012026103000.", ""},
	{"amount-format", "GR-5", Error, "amount is not a number with at most two decimal places", "Send amount as a JSON number with two decimals, such as 149.50.", ""},
	{"reference-token-per-request", "TOK-5", Warning, "The reference token was fetched more often than the hourly refresh the contract advises", "Cache the referenceKey and refresh it on a schedule (hourly), not per request.", "The contract advises an hourly refresh; more than 4 fetches in any 60 minutes as per request is the simulator's threshold."},
	{"ext-transaction-id-across-offers", "CPN-5", Error, "One extTransactionId was reused for claims of different offers", "Use a new extTransactionId for every claim; reuse is undefined behaviour across offers.", ""},
	{"retry-with-new-ext-transaction-id", "CPN-4", Error, "A claim that timed out or was dropped was retried with a new extTransactionId", "After a timeout or a dropped connection, reconcile through getUserCoupons and retry with the same extTransactionId.", "The contract asks for the same extTransactionId on a retry; the next claim within 15 minutes of a timed-out one as its retry is the simulator's reading."},
	{"tracklink-never-fired", "TRK-1", Warning, "Cards were listed but none of their trackLink impression URLs was fired", "GET every trackLink URL of a card when the card becomes visible.", ""},
	{"second-reveal", "REV-2", Error, "A card already revealed was revealed again", "Reveal a card once; show a revealed card from GetAllScratchCardsByUserId, which carries its details.", ""},
	{"claim-after-terminal-error", "CPN-3", Error, "A coupon claim was sent again with a new extTransactionId after the offer answered COUPON_EXHAUSTED, MAX_LIMIT_REACHED, NON_ELIGIBLE or INVALID_OFFER", "These errorCodes are final for that user and offer: show the message, stop claiming, and do not retry under a new extTransactionId.", "The contract lists these errorCodes; reading them as final for that user and offer (for an hour, or until a claim is served after a real refusal) is the simulator's."},
	{"expired-token", "TOK-4", Error, "A call was made with a token past its expireDate (or one already refused as expired)", "Read expireDate from the token answer and fetch a new token before it passes; after a 401 for an expired token, fetch a new one instead of resending.", ""},
	{"get-reward-conflicting-duplicate", "GR-4", Error, "A GetReward extTransactionId that already created cards was sent again with a different body", "Retry with exactly the same body; a new transaction needs a new extTransactionId (the service answers the first cards and ignores the change).", ""},
	{"coupon-claim-conflicting-duplicate", "CPN-5", Error, "A coupon claim was retried with the same extTransactionId and a different coinsUsed", "Retry a claim with exactly the same body; a new purchase needs a new extTransactionId.", ""},
	{"not-available-endpoint", "NA-1", Error, "RegisterEvent or ExitEvent was called; they have no implementation", "Remove the call: no logout is needed; run referrals with a scratch card trigger.", ""},
	{"webhook-not-ok", "WH-2", Error, `The webhook receiver did not answer a JSON object with status "OK"`, `Answer the coupon-status webhook at once with {"status":"OK"} and process it asynchronously.`, ""},
	{"webhook-slow", "WH-2", Warning, "The webhook receiver answered slowly", "Acknowledge first, then process asynchronously.", "The contract asks for a prompt acknowledgement; 2 s as slow is the simulator's threshold."},
	{"client-timeout-below-latency-p99", "SIM-6", Warning, "The client hung up on an endpoint sooner than the latency profile's p99: about one call in a hundred of the real service's would time out", "Set the client's timeout above the endpoint's p99 (rewardsim latency ls shows it), or handle the timeout as the contract asks (CPN-4: reconcile, retry with the same extTransactionId).", "Latency is simulator behaviour, not contract: a journal entry marked clientGone whose latency is below the p99 of the profile governing its endpoint and channel as the report runs is the simulator's reading of a client timeout shorter than the p99."},
	{"answer-signature-not-verified", "ENV-3", Error, "A token or session from an answer whose SIGN did not verify (an injected answer-sign fault) was used afterwards", "Verify SIGN of every signed answer with the service certificate before using anything in it; refuse the answer when it does not verify.", ""},
	{"limit-retry-after-ignored", "CAP-1", Warning, "A call refused by the channel's capacity limit was retried sooner than its Retry-After", "Wait at least Retry-After before retrying a refused call (back off, with jitter); a retry storm keeps a limited service full.", "The contract shows no capacity refusal; the refusal's shape, its Retry-After and the next call of the same user and endpoint as its retry are the simulator's reading (docs/limits.md)."},
	{"limit-refusal-not-retried", "CAP-1", Info, "A call refused by the channel's capacity limit was never sent again", "A refusal for capacity is transient: retry it after Retry-After (a claim with the same extTransactionId), or tell the user it can be tried again.", "The contract shows no capacity refusal; a refusal as transient, and the same user's next call of the endpoint as its retry, are the simulator's reading (docs/limits.md)."},
}

// Unseen is a promise the report cannot check from the journal: what the
// app does with an answer, inside the app. "No finding" says nothing about
// these; How says how to test them.
type Unseen struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	How   string `json:"how"`
}

// NotCheckable lists what the report cannot see, so a report without
// findings never reads as "compliant".
var NotCheckable = []Unseen{
	{"answer-verification", "Whether the app verifies SIGN on the answers it receives (ENV-3): the journal sees what the app sends, not what it checks",
		"Arm an answer-sign-other-key (or -other-bytes, -absent) fault on a signed endpoint and drive the app: a token or session it then uses is a finding (answer-signature-not-verified); see testing-your-service.md"},
	{"what-the-app-shows", "What the app shows its user: messages, coupon codes, error texts, a revealed reward",
		"Check the app's screens in its own UI tests, against the answers the journal recorded"},
	{"webhook-acted-on", "Whether the app acts on a coupon-status webhook push (WH-1, WH-2): the journal sees its answer, so an app that answers {\"status\":\"OK\"} and does nothing with the push looks the same as one that marks the coupon used, expired or out of stock",
		"Send a push in a test (rewardsim webhook send, or the webhook-storm story) and assert what the app did with it: its own state, or the getUserCoupons call it makes after"},
	{"what-the-app-stores", "What the app keeps between calls (a claim's extTransactionId for a retry, a token until its expireDate) beyond what its later calls show",
		"Restart the app mid-flow in a test and read the journal for the calls it makes after"},
}

// Options tune the report.
type Options struct {
	// Channel restricts the report to one channel (name or CHANNELID).
	Channel string
	// RefTokenPerHour is how many getSecuredReferenceToken fetches per
	// channel in any 60 minutes of simulated time are tolerated (TOK-5);
	// 0 means DefaultRefTokenPerHour.
	RefTokenPerHour int
	// SlowWebhook is the latency above which a webhook answer is slow;
	// 0 means DefaultSlowWebhook.
	SlowWebhook time.Duration
	// RetryWindow is how soon after a timed-out claim the next claim for
	// the same user and offer counts as its retry; 0 means DefaultRetryWindow.
	RetryWindow time.Duration
	// TerminalWindow is how long after a final coupon answer (CPN-3) a
	// claim with a new extTransactionId counts as ignoring it; later, a
	// restock may have come between. 0 means DefaultTerminalWindow.
	TerminalWindow time.Duration
	// NoCardsRendered says the publisher's service never renders cards (a
	// back end: the app that shows them fires the trackLink impressions),
	// so TRK-1's rule is not checked (Report.Skipped says so).
	NoCardsRendered bool
	// LatencyP99 is the p99 of the latency profile now governing an
	// endpoint's calls on a channel (0: none); nil: no profile is read.
	LatencyP99 func(endpoint, channel string) time.Duration
}

// Skip is a rule not checked because an option says it does not apply.
type Skip struct {
	ID  string `json:"id"`
	Why string `json:"why"`
}

// Defaults of Options, documented in docs/journal-report.md.
const (
	DefaultRefTokenPerHour = 4
	DefaultSlowWebhook     = 2 * time.Second
	DefaultRetryWindow     = 15 * time.Minute
	DefaultTerminalWindow  = time.Hour
)

// Example is the exchange that illustrates a finding.
type Example struct {
	Seq      uint64    `json:"seq"`
	At       time.Time `json:"at"`
	Method   string    `json:"method"`
	Path     string    `json:"path"`
	Endpoint string    `json:"endpoint,omitempty"`
	Status   int       `json:"status"`
	Reason   string    `json:"reason,omitempty"`
	Detail   string    `json:"detail"`
}

// Finding is one rule the publisher broke.
type Finding struct {
	Rule
	Count   int     `json:"count"`
	Example Example `json:"example"`
}

// Report is the whole report.
type Report struct {
	Channel   string         `json:"channel,omitempty"`
	Exchanges int            `json:"exchanges"`
	Findings  []Finding      `json:"findings"`
	Totals    map[string]int `json:"totals"`
	Checked   []Rule         `json:"checked"`
	// NotCheckable is what no rule can see from the journal.
	NotCheckable []Unseen `json:"notCheckable"`
	// Skipped is the rules an option left out (Options.NoCardsRendered).
	Skipped []Skip `json:"skipped,omitempty"`
	// JournalDropped is how many exchanges the journal dropped under
	// overload: when not 0 the report may miss findings.
	JournalDropped uint64 `json:"journalDropped,omitempty"`
}

// Fails reports whether a finding of severity min or worse exists.
func (r Report) Fails(min Severity) bool {
	for _, f := range r.Findings {
		if f.Severity.AtLeast(min) {
			return true
		}
	}
	return false
}

// collector accumulates findings by rule.
type collector struct {
	byID map[string]*Finding
}

func (c *collector) add(id string, e *journal.Entry, detail string) {
	f := c.byID[id]
	if f == nil {
		for _, r := range Rules {
			if r.ID == id {
				f = &Finding{Rule: r}
			}
		}
		f.Example = Example{Seq: e.Seq, At: e.At, Method: e.Method, Path: e.Path, Endpoint: e.Endpoint, Status: e.Status, Reason: e.Reason, Detail: detail}
		c.byID[id] = f
	}
	f.Count++
}

// endpointIs matches an entry by operation name, or by the last path
// segment for operations the contract table does not list (yet).
func endpointIs(e *journal.Entry, name string) bool {
	return e.Endpoint == name || (e.Kind == journal.KindExchange && path.Base(e.Path) == name)
}

// sortByAt orders entries by time, keeping journal order for ties.
func sortByAt(es []*journal.Entry) {
	sort.SliceStable(es, func(i, j int) bool { return es[i].At.Before(es[j].At) })
}

// slim is the entry without its messages: what a finding's example and
// a rule's remembered call need, so rule state grows by a few words a
// call, not by its bodies.
func slim(e *journal.Entry) *journal.Entry {
	return &journal.Entry{Seq: e.Seq, Kind: e.Kind, At: e.At, Method: e.Method, Path: e.Path, Endpoint: e.Endpoint,
		Status: e.Status, Reason: e.Reason, Fault: e.Fault, Channel: e.Channel, ChannelID: e.ChannelID}
}

func contains(s, sub string) bool { return sub != "" && strings.Contains(s, sub) }
