package journal

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

// clause: SIM-3
// Issue 24: an entry's outcome is what its answer meant under the
// contract, whatever its HTTP status.
func TestOutcome_readsTheAnswerNotTheStatus(t *testing.T) {
	signed := func(bdata string) []byte {
		return []byte(`{"CHANNELID":"X","SIGN":"s","BDATA":"` + base64.StdEncoding.EncodeToString([]byte(bdata)) + `"}`)
	}
	for _, c := range []struct {
		name       string
		r          record
		kind, code string
	}{
		{"success", record{Kind: KindExchange, Status: 200, ResBody: []byte(`{"status":true,"message":"success"}`)}, OutcomeSuccess, ""},
		{"signed success", record{Kind: KindExchange, Status: 200, ResBody: signed(`{"status":true}`)}, OutcomeSuccess, ""},
		{"coupon error under HTTP 200", record{Kind: KindExchange, Status: 200, ResBody: []byte(`{"status":409,"errorCode":"COUPON_EXHAUSTED","message":"x"}`)}, OutcomeRefusal, "COUPON_EXHAUSTED"},
		{"bare failure under HTTP 200", record{Kind: KindExchange, Status: 200, ResBody: []byte(`{"STATUS":"FAILURE","ERRORSTRING":"Reward Already Revealed!"}`)}, OutcomeRefusal, ""},
		{"signed status false", record{Kind: KindExchange, Status: 200, ResBody: signed(`{"status":false,"isAlreadyRewarded":true}`)}, OutcomeRefusal, ""},
		{"a reason", record{Kind: KindExchange, Status: 200, Reason: "not eligible", ResBody: []byte(`{}`)}, OutcomeRefusal, ""},
		{"4xx", record{Kind: KindExchange, Status: 404}, OutcomeRefusal, ""},
		{"injected coupon error", record{Kind: KindExchange, Status: 200, Fault: "coupon-error", ResBody: []byte(`{"status":409,"errorCode":"COUPON_EXHAUSTED"}`)}, OutcomeFault, "COUPON_EXHAUSTED"},
		{"dropped", record{Kind: KindExchange, Dropped: true, Fault: "", Status: 0}, OutcomeTransport, ""},
		{"caller gone", record{Kind: KindExchange, ClientGone: true, Status: 200}, OutcomeTransport, ""},
		{"webhook acknowledged", record{Kind: KindWebhook, Status: 200, ResBody: []byte(`{"status":"OK"}`)}, OutcomeSuccess, ""},
		{"webhook not OK", record{Kind: KindWebhook, Status: 200, ResBody: []byte(`{"status":"ok"}`)}, OutcomeRefusal, ""},
		{"webhook unreachable", record{Kind: KindWebhook, Error: "connection refused"}, OutcomeTransport, ""},
	} {
		if kind, code := c.r.outcome(); kind != c.kind || code != c.code {
			t.Errorf("%s: %s %q, want %s %q", c.name, kind, code, c.kind, c.code)
		}
	}
}

// BenchmarkOutcome is the cost of classifying an entry, beside the
// baseline of expanding its answer as every journal read does (message:
// compacting the JSON and decoding BDATA).
func BenchmarkOutcome(b *testing.B) {
	signed := `{"CHANNELID":"X","SIGN":"s","BDATA":"` + base64.StdEncoding.EncodeToString([]byte(`{"status":true,"token":"abcdefghijklmnop","expireDate":"2026-01-15 10:30:00.000"}`)) + `"}`
	for _, c := range []struct {
		name string
		r    record
	}{
		{"plain", record{Kind: KindExchange, Status: 200, ResBody: []byte(`{"status":true,"message":"success","rewards":[]}`)}},
		{"signed", record{Kind: KindExchange, Status: 200, ResBody: []byte(signed)}},
	} {
		b.Run("baseline-message/"+c.name, func(b *testing.B) {
			for b.Loop() {
				_ = message(nil, c.r.ResBody, false)
			}
		})
		b.Run("outcome/"+c.name, func(b *testing.B) {
			for b.Loop() {
				_, _ = c.r.outcome()
			}
		})
	}
}

// A repeated answer is classified from the facts the learn memo keeps
// (issue 25): the same outcome, errorCode and owners handed out as
// reading its bytes, for each answer the writer sees again, whatever the
// status, reason and fault beside it.
func TestOutcome_factsAsReadingTheBytes(t *testing.T) {
	signed := func(bdata string) string {
		return `{"CHANNELID":"X","SIGN":"s","BDATA":"` + base64.StdEncoding.EncodeToString([]byte(bdata)) + `"}`
	}
	bodies := []string{`{"status":true,"message":"success","rewards":[{"rewardId":1,"title":"` + strings.Repeat("x", 60) + `"}]}`,
		signed(`{"status":true,"token":"T0123456789012345678901234567890123456789ab","referenceKey":"R"}`),
		signed(`{"status":false,"isAlreadyRewarded":true}`),
		`{"status":409,"errorCode":"COUPON_EXHAUSTED","message":"x","pad":"` + strings.Repeat("y", 40) + `"}`,
		`{"STATUS":"FAILURE","ERRORSTRING":"Reward Already Revealed!","pad":"` + strings.Repeat("z", 40) + `"}`,
		`<html>` + strings.Repeat("page ", 20) + `</html>`}
	b := NewBuilder(secrets.New())
	hits := 0
	for _, body := range append(bodies, bodies...) { // from facts the second time at the latest
		for _, status := range []int{200, 404, 0} {
			for _, reason := range []string{"", "not eligible"} {
				for _, fault := range []string{"", "coupon-error"} {
					x := &Exchange{Method: "POST", Path: "/api/GetReward", Status: status, Fault: fault, ResponseBody: []byte(body),
						reqPairs: headerPairs{"X-Channelid", "DEMOBANK"}, resPairs: headerPairs{"X-Rewardsim-Reason", reason}}
					r := b.record(x)
					if !r.hasFacts {
						continue
					}
					hits++
					plain := *r
					plain.facts, plain.hasFacts = answerFacts{}, false
					k1, c1 := r.outcome()
					k2, c2 := plain.outcome()
					if k1 != k2 || c1 != c2 {
						t.Errorf("%s, %d %q %q: from facts %s %q, from the bytes %s %q", body, status, reason, fault, k1, c1, k2, c2)
					}
				}
			}
		}
	}
	if hits == 0 {
		t.Fatal("no answer was classified from facts")
	}
}
