package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
)

var t0 = time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)

// ex is a synthetic exchange on path at t0+min minutes.
func ex(path string, min int, mods ...func(*journal.Entry)) journal.Entry {
	e := journal.Entry{Kind: journal.KindExchange, Method: "POST", Path: path, At: t0.Add(time.Duration(min) * time.Minute), Status: 200, Channel: "DEMOBANK", ChannelID: "DEMOBANK"}
	for _, m := range mods {
		m(&e)
	}
	return e
}

func reqBody(s string) func(*journal.Entry) {
	return func(e *journal.Entry) { e.Request.Body = json.RawMessage(s) }
}
func resBody(s string) func(*journal.Entry) {
	return func(e *journal.Entry) { e.Response.Body = json.RawMessage(s) }
}
func status(n int, reason string) func(*journal.Entry) {
	return func(e *journal.Entry) { e.Status, e.Reason = n, reason }
}
func get(e *journal.Entry)  { e.Method, e.Channel, e.ChannelID = "GET", "", "" }
func gone(e *journal.Entry) { e.ClientGone = true }

func refToken(min int) journal.Entry {
	return ex("/api/getSecuredReferenceToken", min, func(e *journal.Entry) {
		e.Endpoint = "getSecuredReferenceToken"
		e.Response.BDATA = json.RawMessage(`{"referenceKey":"k","expireDate":"x"}`)
	})
}

func everyMinutes(n, step int) []journal.Entry {
	var out []journal.Entry
	for i := 0; i < n; i++ {
		out = append(out, refToken(i*step))
	}
	return out
}

func hook(status int, body string, latencyMs float64, errText string) journal.Entry {
	return journal.Entry{Kind: journal.KindWebhook, Method: "POST", Path: "http://publisher.test/hook", At: t0, Channel: "DEMOBANK",
		Status: status, Response: journal.Message{Body: json.RawMessage(body)}, LatencyMs: latencyMs, Error: errText}
}

const goodReward = `{"channelName":"DEMOBANK","virtualId":"VU-1","triggerEventType":"UPI","extTransactionId":"T1","dateandtime":"15012026103000","amount":149.50,"additionalParams":"{\"city\":\"Pune\"}"}`

// exhausted is a claim answered COUPON_EXHAUSTED.
func exhausted(e *journal.Entry) {
	e.Status, e.Response.Body = 409, json.RawMessage(`{"status":409,"errorCode":"COUPON_EXHAUSTED","message":"x"}`)
}

func coupon(min int, vid, offer, txn string, mods ...func(*journal.Entry)) journal.Entry {
	body := fmt.Sprintf(`{"offerId":%q,"virtualId":%q,"channelName":"DEMOBANK","extTransactionId":%q,"coinsUsed":"10"}`, offer, vid, txn)
	return ex("/api/fetchCouponCode", min, append([]func(*journal.Entry){reqBody(body)}, mods...)...)
}

const listed = `{"status":true,"message":"success","rewards":[{"rewardId":7,"isAlreadyRewarded":false,"createdDateTime":"2026-01-15 10:00:00.000","trackLink":["http://sim.test/t/imp?card=7"]}],"clicktrack":[]}`

// Each rule: entries that provoke it, and a correct publisher's entries
// that do not.
var cases = []struct {
	rule, clause   string
	bad, good      []journal.Entry
	count          int
	detailContains string
}{
	{"sign-over-decoded-json", "ENV-2",
		[]journal.Entry{ex("/api/GetAuthToken", 0, status(200, "SIGN was made over the decoded JSON; sign the base64 BDATA string itself"))},
		[]journal.Entry{ex("/api/GetAuthToken", 0), ex("/api/GetAuthToken", 1, status(200, "SIGN does not verify over the base64 BDATA string"))},
		1, "decoded JSON"},
	{"wrong-token-type", "AUTH-1",
		[]journal.Entry{ex("/api/GetReward", 0, reqBody(goodReward), status(401, "wrong token type: GetReward takes a reference token")),
			ex("/api/FetchRewardInfo", 1, status(401, "wrong token type"))},
		[]journal.Entry{ex("/api/GetReward", 0, reqBody(goodReward)), ex("/api/GetReward", 1, reqBody(goodReward), status(401, "missing bearer token"))},
		2, "wrong token type"},
	{"nested-additional-params", "GR-7",
		[]journal.Entry{ex("/api/GetReward", 0, reqBody(strings.Replace(goodReward, `"{\"city\":\"Pune\"}"`, `{"city":"Pune"}`, 1)))},
		[]journal.Entry{ex("/api/GetReward", 0, reqBody(goodReward)), ex("/api/GetReward", 1, reqBody(`{"virtualId":"VU-1","dateandtime":"15012026103000"}`))},
		1, "JSON object"},
	{"dateandtime-format", "GR-6",
		[]journal.Entry{ex("/api/GetReward", 0, reqBody(strings.Replace(goodReward, "15012026103000", "2026-01-15 10:30:00", 1))),
			ex("/api/GetReward", 1, reqBody(strings.Replace(goodReward, "15012026103000", "32012026103000", 1))),
			ex("/api/GetReward", 2, reqBody(strings.Replace(goodReward, `"15012026103000"`, `15012026103000`, 1)))},
		[]journal.Entry{ex("/api/GetReward", 0, reqBody(goodReward))},
		3, "dateandtime was"},
	{"amount-format", "GR-5",
		[]journal.Entry{ex("/api/GetReward", 0, reqBody(strings.Replace(goodReward, "149.50", `"149.50"`, 1))),
			ex("/api/GetReward", 1, reqBody(strings.Replace(goodReward, "149.50", "149.505", 1))),
			ex("/api/GetReward", 2, reqBody(strings.Replace(goodReward, "149.50", "1.4950e2", 1)))},
		[]journal.Entry{ex("/api/GetReward", 0, reqBody(goodReward)), ex("/api/GetReward", 1, reqBody(strings.Replace(goodReward, "149.50", "149", 1))),
			ex("/api/GetReward", 2, reqBody(strings.Replace(goodReward, `,"amount":149.50`, "", 1)))},
		3, "amount was"},
	// TOK-5: 6 fetches in 50 minutes exceed 4 per hour twice; hourly
	// refreshes over 6 hours, and 4 fetches in one hour, do not.
	{"reference-token-per-request", "TOK-5",
		everyMinutes(6, 10),
		append(everyMinutes(6, 60), everyMinutes(4, 1)[1:]...),
		2, "within an hour (threshold 4)"},
	{"ext-transaction-id-across-offers", "CPN-5",
		[]journal.Entry{coupon(0, "VU-1", "OFF-1", "TX-1"), coupon(1, "VU-1", "OFF-2", "TX-1")},
		[]journal.Entry{coupon(0, "VU-1", "OFF-1", "TX-1"), coupon(1, "VU-1", "OFF-1", "TX-1"), coupon(2, "VU-1", "OFF-2", "TX-2")},
		1, `"OFF-1" and then offer "OFF-2"`},
	{"retry-with-new-ext-transaction-id", "CPN-4",
		[]journal.Entry{coupon(0, "VU-1", "OFF-1", "TX-1", gone), coupon(1, "VU-1", "OFF-1", "TX-2"),
			coupon(2, "VU-2", "OFF-1", "TX-3", func(e *journal.Entry) { e.Fault = "drop-connection" }), coupon(3, "VU-2", "OFF-1", "TX-4")},
		[]journal.Entry{coupon(0, "VU-1", "OFF-1", "TX-1", gone), coupon(1, "VU-1", "OFF-1", "TX-1"),
			coupon(2, "VU-2", "OFF-1", "TX-3"), coupon(3, "VU-2", "OFF-1", "TX-4"),
			coupon(4, "VU-3", "OFF-1", "TX-5", gone), coupon(40, "VU-3", "OFF-1", "TX-6")},
		2, "timed out; the retry"},
	// CPN-3: a new extTransactionId after a final errorCode, for the same
	// user and offer, within the hour; the same claim resent, another user
	// or another offer, a retry after a non-final error, one served after
	// a real refusal (stock came back) or one over an hour later (a restock may have come
	// between), are not.
	{"claim-after-terminal-error", "CPN-3",
		[]journal.Entry{coupon(0, "VU-1", "OFF-1", "TX-1", exhausted),
			coupon(1, "VU-1", "OFF-1", "TX-2", exhausted),
			coupon(2, "VU-1", "OFF-1", "TX-3", exhausted),
			coupon(3, "VU-2", "OFF-2", "TX-4", status(429, ""), resBody(`{"status":429,"errorCode":"MAX_LIMIT_REACHED","message":"x"}`)),
			coupon(4, "VU-2", "OFF-2", "TX-5", status(429, ""), resBody(`{"status":429,"errorCode":"MAX_LIMIT_REACHED","message":"x"}`)),
			// An injected exhaustion: no stock ran out, so a served retry is
			// no restock but a final answer retried.
			coupon(6, "VU-6", "OFF-1", "TX-10", exhausted, func(e *journal.Entry) { e.Fault = "coupon-error" }), coupon(7, "VU-6", "OFF-1", "TX-11")},
		[]journal.Entry{coupon(0, "VU-1", "OFF-1", "TX-1", exhausted),
			coupon(1, "VU-1", "OFF-1", "TX-1"), coupon(2, "VU-2", "OFF-1", "TX-2"), coupon(3, "VU-1", "OFF-2", "TX-3"),
			coupon(4, "VU-3", "OFF-1", "TX-4", status(500, ""), resBody(`{"status":500,"errorCode":"INTERNAL_ERROR","message":"x"}`)), coupon(5, "VU-3", "OFF-1", "TX-5"),
			coupon(10, "VU-4", "OFF-1", "TX-6", exhausted), coupon(12, "VU-4", "OFF-1", "TX-7"),
			coupon(20, "VU-5", "OFF-1", "TX-8", exhausted), coupon(90, "VU-5", "OFF-1", "TX-9", exhausted)},
		4, "COUPON_EXHAUSTED to claim"},
	// TOK-4: every call refused for an expired token; the second with the
	// same token says it was already refused.
	{"expired-token", "TOK-4",
		[]journal.Entry{ex("/api/FetchRewardInfo", 0, status(401, "token has expired"), func(e *journal.Entry) { e.Request.Header = map[string]string{"Authorization": "Bearer ~fp:abc"} }),
			ex("/api/FetchRewardInfo", 1, status(401, "token has expired"), func(e *journal.Entry) { e.Request.Header = map[string]string{"Authorization": "Bearer ~fp:abc"} })},
		[]journal.Entry{ex("/api/FetchRewardInfo", 0, status(401, "unknown token")), ex("/api/FetchRewardInfo", 1)},
		2, "refused: token has expired"},
	{"tracklink-never-fired", "TRK-1",
		[]journal.Entry{ex("/api/GetReward", 0, reqBody(goodReward), resBody(listed)), ex("/t/imp", 1, get, func(e *journal.Entry) { e.Query = "card=8" })},
		[]journal.Entry{ex("/api/GetReward", 0, reqBody(goodReward), resBody(listed)), ex("/t/imp", 1, get, func(e *journal.Entry) { e.Query = "card=7" })},
		1, "card 7 was listed"},
	{"not-available-endpoint", "NA-1",
		[]journal.Entry{ex("/api/RegisterEvent", 0, status(404, "")), ex("/api/ExitEvent", 1, status(404, ""))},
		[]journal.Entry{ex("/api/GetAuthToken", 0)},
		2, "answered HTTP 404"},
	{"webhook-not-ok", "WH-2",
		[]journal.Entry{hook(200, `{"status":"ok"}`, 10, ""), hook(500, `{"status":"OK"}`, 10, ""), hook(0, ``, 10, "connection refused"), hook(200, `"OK"`, 10, "")},
		[]journal.Entry{hook(200, `{"status":"OK"}`, 10, ""), hook(202, `{"status":"OK","id":1}`, 1900, "")},
		4, "not a JSON object"},
	{"webhook-slow", "WH-2",
		[]journal.Entry{hook(200, `{"status":"OK"}`, 2500, "")},
		[]journal.Entry{hook(200, `{"status":"OK"}`, 1999, "")},
		1, "threshold 2s"},
}

// clause: SIM-6
func TestRules_SIM6_eachFindingProvokedAndCleanPublisherGetsNone(t *testing.T) {
	for _, c := range cases {
		t.Run(c.clause+"/"+c.rule, func(t *testing.T) {
			r := Build(c.bad, Options{})
			var f *Finding
			for i := range r.Findings {
				if r.Findings[i].ID == c.rule {
					f = &r.Findings[i]
				}
			}
			if f == nil {
				t.Fatalf("no %s finding; got %+v", c.rule, r.Findings)
			}
			if f.Clause != c.clause || f.Count != c.count || !strings.Contains(f.Example.Detail, c.detailContains) {
				t.Errorf("finding %s: clause %s count %d detail %q; want %s, %d, containing %q", c.rule, f.Clause, f.Count, f.Example.Detail, c.clause, c.count, c.detailContains)
			}
			if !r.Fails(f.Severity) || r.Totals[string(f.Severity)] == 0 {
				t.Errorf("report with a %s finding does not fail on %s", f.Severity, f.Severity)
			}
			if good := Build(c.good, Options{}); len(good.Findings) != 0 {
				t.Errorf("a correct publisher got findings: %+v", good.Findings)
			}
		})
	}
}

// clause: SIM-6
func TestReport_SIM6_channelFilterAndFailOn(t *testing.T) {
	es := []journal.Entry{ex("/api/RegisterEvent", 0), refToken(1), refToken(2), refToken(3), refToken(4), refToken(5)}
	es[0].Channel, es[0].ChannelID = "OTHER", "OTHERID"
	all := Build(es, Options{})
	if len(all.Findings) != 2 || !all.Fails(Error) || !all.Fails(Warning) {
		t.Fatalf("all channels: %+v", all.Findings)
	}
	demo := Build(es, Options{Channel: "DEMOBANK"})
	if len(demo.Findings) != 1 || demo.Findings[0].Clause != "TOK-5" || demo.Fails(Error) || !demo.Fails(Warning) {
		t.Errorf("DEMOBANK only: %+v", demo.Findings)
	}
	other := Build(es, Options{Channel: "OTHERID"})
	if len(other.Findings) != 1 || other.Findings[0].Clause != "NA-1" || other.Exchanges != 1 {
		t.Errorf("OTHERID only: %+v", other)
	}
	// The TOK-5 threshold is an option.
	if r := Build(es, Options{RefTokenPerHour: 5, Channel: "DEMOBANK"}); len(r.Findings) != 0 {
		t.Errorf("5 fetches with a threshold of 5: %+v", r.Findings)
	}
}

func TestHTML_SIM6_listsFindingsAndChecks(t *testing.T) {
	var b strings.Builder
	if err := HTML(&b, Build([]journal.Entry{ex("/api/ExitEvent", 0, status(404, "<x>"))}, Options{Channel: "DEMOBANK"})); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"for DEMOBANK", "NA-1", "/api/ExitEvent", "webhook-slow", "1 finding(s)"} {
		if !strings.Contains(out, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if strings.Contains(out, "<x>") {
		t.Error("HTML does not escape")
	}
}

// clause: SIM-6, NA-1
// Under a channel filter every rule keeps its findings: a call that names
// no channel is attributed by a credential only that channel's calls
// carried; a credential two channels shared attributes nothing.
func TestBuild_SIM6_channelFilterAttributesByCredentials(t *testing.T) {
	key := func(v string) func(*journal.Entry) {
		return func(e *journal.Entry) { e.Request.Header = map[string]string{"X-App-Key": v} }
	}
	anon := func(e *journal.Entry) { e.Channel, e.ChannelID = "", "" }
	other := func(e *journal.Entry) { e.Channel, e.ChannelID = "OTHER", "OTHER" }
	es := []journal.Entry{
		ex("/api/GetAuthToken", 0, key("~fp:mine")),
		ex("/api/GetAuthToken", 0, key("~fp:theirs"), other),
		ex("/api/RegisterEvent", 1, status(404, ""), anon, key("~fp:mine")),
		ex("/api/ExitEvent", 2, status(404, ""), anon, key("~fp:theirs")),
		ex("/api/FetchRewardInfo", 3, status(401, "token has expired"), anon, key("~fp:mine")),
	}
	r := Build(es, Options{Channel: "DEMOBANK"})
	got := map[string]int{}
	for _, f := range r.Findings {
		got[f.ID] = f.Count
	}
	if got["not-available-endpoint"] != 1 || got["expired-token"] != 1 || len(got) != 2 {
		t.Fatalf("DEMOBANK findings %v, want NA-1 x1 (its own RegisterEvent, not OTHER's ExitEvent) and TOK-4 x1", got)
	}
	if r := Build(es, Options{Channel: "OTHER"}); len(r.Findings) != 1 || r.Findings[0].ID != "not-available-endpoint" || r.Findings[0].Example.Path != "/api/ExitEvent" {
		t.Fatalf("OTHER findings %+v", r.Findings)
	}
}

// Issue 50, item 9: the report names, among what it cannot check,
// whether the app acts on a webhook push (an app that answers OK and
// does nothing is invisible to the journal); and a back end that never
// renders cards (NoCardsRendered) is not warned about trackLink
// impressions (TRK-1): the rule is left out of checked and named in
// skipped, with why.
func TestReport_SIM6_webhookActionUnseenAndNoCardsRendered(t *testing.T) {
	never := []journal.Entry{ex("/api/GetReward", 0, reqBody(goodReward), resBody(listed))}
	for _, tc := range []struct {
		name        string
		o           Options
		wantFinding bool
	}{
		{"cards rendered (default)", Options{}, true},
		{"no cards rendered", Options{NoCardsRendered: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Build(never, tc.o)
			found, checked := false, false
			for _, f := range r.Findings {
				found = found || f.ID == "tracklink-never-fired"
			}
			for _, c := range r.Checked {
				checked = checked || c.ID == "tracklink-never-fired"
			}
			if found != tc.wantFinding || checked != tc.wantFinding {
				t.Errorf("tracklink-never-fired: found %v, checked %v; want %v", found, checked, tc.wantFinding)
			}
			skipped := len(r.Skipped) == 1 && r.Skipped[0].ID == "tracklink-never-fired" && strings.Contains(r.Skipped[0].Why, "renders no cards")
			if skipped == tc.wantFinding {
				t.Errorf("skipped %+v, want the trackLink rule named only when no cards are rendered", r.Skipped)
			}
			webhook := false
			for _, u := range r.NotCheckable {
				webhook = webhook || u.ID == "webhook-acted-on" && strings.Contains(u.Title, "does nothing")
			}
			if !webhook {
				t.Errorf("not checkable %+v: whether the app acts on a webhook push is not named", r.NotCheckable)
			}
		})
	}
}
