package journal

import (
	"encoding/base64"
	"testing"
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
