package outcome

import (
	"encoding/base64"
	"strings"
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
		x          Exchange
		kind, code string
	}{
		{"success", Exchange{Status: 200, Body: []byte(`{"status":true,"message":"success"}`)}, Success, ""},
		{"signed success", Exchange{Status: 200, Body: signed(`{"status":true}`)}, Success, ""},
		{"coupon error under HTTP 200", Exchange{Status: 200, Body: []byte(`{"status":409,"errorCode":"COUPON_EXHAUSTED","message":"x"}`)}, Refusal, "COUPON_EXHAUSTED"},
		{"bare failure under HTTP 200", Exchange{Status: 200, Body: []byte(`{"STATUS":"FAILURE","ERRORSTRING":"Reward Already Revealed!"}`)}, Refusal, ""},
		{"signed status false", Exchange{Status: 200, Body: signed(`{"status":false,"isAlreadyRewarded":true}`)}, Refusal, ""},
		{"a reason", Exchange{Status: 200, Reason: "not eligible", Body: []byte(`{}`)}, Refusal, ""},
		{"4xx", Exchange{Status: 404}, Refusal, ""},
		{"injected coupon error", Exchange{Status: 200, Fault: "coupon-error", Body: []byte(`{"status":409,"errorCode":"COUPON_EXHAUSTED"}`)}, Fault, "COUPON_EXHAUSTED"},
		{"dropped", Exchange{Dropped: true, Fault: "", Status: 0}, Transport, ""},
		{"caller gone", Exchange{ClientGone: true, Status: 200}, Transport, ""},
		{"webhook acknowledged", Exchange{Webhook: true, Status: 200, Body: []byte(`{"status":"OK"}`)}, Success, ""},
		{"webhook not OK", Exchange{Webhook: true, Status: 200, Body: []byte(`{"status":"ok"}`)}, Refusal, ""},
		{"webhook unreachable", Exchange{Webhook: true, Err: "connection refused"}, Transport, ""},
	} {
		if kind, code := Of(c.x, nil); kind != c.kind || code != c.code {
			t.Errorf("%s: %s %q, want %s %q", c.name, kind, code, c.kind, c.code)
		}
	}
}

// An answer classified from its facts, read once (the journal keeps them
// with a repeated answer, issue 25), is classified as reading its bytes,
// whatever the status, reason and fault beside it.
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
	for _, body := range bodies {
		facts := Read([]byte(body))
		for _, status := range []int{200, 404, 0} {
			for _, reason := range []string{"", "not eligible"} {
				for _, fault := range []string{"", "coupon-error"} {
					x := Exchange{Status: status, Fault: fault, Reason: reason, Body: []byte(body)}
					k1, c1 := Of(x, &facts)
					k2, c2 := Of(x, nil)
					if k1 != k2 || c1 != c2 {
						t.Errorf("%s, %d %q %q: from facts %s %q, from the bytes %s %q", body, status, reason, fault, k1, c1, k2, c2)
					}
				}
			}
		}
	}
}
