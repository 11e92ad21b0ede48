package sim_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: CAP-1
// Where the limit counts a call (docs/limits.md, "Which calls spend a
// token"): a call is charged to its channel once its credentials admitted
// it, as a gateway's per-client limiter charges a caller it has
// identified. A call refused for its credentials (a wrong secKey, an
// unknown X-CHANNELID, a SIGN that does not verify) spends no token of
// the channel it names; nor, today, does one its way in refuses for its
// shape (a body off the schema); one the operation itself refuses (an
// offer that does not exist) spends one, as an answered call does.
func TestLimits_whichCallsSpendAToken(t *testing.T) {
	s := simtest.New(t)
	const key = "ServiceAppKey DEMOAPPKEY:DEMOSECKEY"
	coupon := func(path, body string, headers ...string) func() (*http.Response, string) {
		return func() (*http.Response, string) {
			h := append([]string{"X-CHANNELID", "DEMOBANK", "Authorization", key}, headers...)
			return send(t, "POST", s.HotdealsURL+path, body, h...)
		}
	}
	catalogue := coupon("/api/getCatalogue", `{"channelName":"DEMOBANK"}`)
	bdata := base64.StdEncoding.EncodeToString([]byte(`{"bName":"DEMOBANK"}`))
	for _, tc := range []struct {
		name string
		call func() (*http.Response, string)
		// answer is in the call's own answer (never the limit's refusal).
		answer string
		spends bool
	}{
		{"a wrong secKey", coupon("/api/getCatalogue", `{"channelName":"DEMOBANK"}`, "Authorization", "ServiceAppKey DEMOAPPKEY:WRONG"), "UNAUTHORIZED", false},
		{"an unknown X-CHANNELID", coupon("/api/getCatalogue", `{"channelName":"DEMOBANK"}`, "X-CHANNELID", "NOSUCH"), "UNAUTHORIZED", false},
		{"a SIGN that does not verify", func() (*http.Response, string) {
			return send(t, "POST", s.RewardsURL+"/api/getSecuredReferenceToken", `{"CHANNELID":"DEMOBANK","SIGN":"AAAA","BDATA":"`+bdata+`"}`)
		}, "Signature Mismatch!", false},
		{"a body off the schema", coupon("/api/getCatalogue", `{"channelName":7}`), "INVALID_REQUEST", false},
		{"an offer that does not exist", coupon("/api/fetchCouponCode",
			`{"offerId":"NO-SUCH","virtualId":"VU-T","channelName":"DEMOBANK","extTransactionId":"TX-T1","coinsUsed":"100"}`), "INVALID_OFFER", true},
		{"an answered call", catalogue, `"offers"`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A bucket of one token that does not refill within the test.
			ctlOK(t, s, http.StatusOK, "POST", "/__sim/limits", map[string]any{"channel": "DEMOBANK", "rate": 0.001, "burst": 1})
			defer ctlOK(t, s, http.StatusOK, "DELETE", "/__sim/limits/DEMOBANK", nil)
			res, body := tc.call()
			if lim := res.Header.Get("X-Rewardsim-Limit"); lim != "" || !strings.Contains(body, tc.answer) {
				t.Fatalf("the call answered HTTP %d %s (X-Rewardsim-Limit %q); want its own answer with %s", res.StatusCode, body, lim, tc.answer)
			}
			res, body = catalogue()
			spent := strings.HasPrefix(res.Header.Get("X-Rewardsim-Limit"), "refused rate")
			if spent != tc.spends {
				t.Errorf("after it the channel's next call answered HTTP %d %s (X-Rewardsim-Limit %q): spent a token %v, want %v",
					res.StatusCode, body, res.Header.Get("X-Rewardsim-Limit"), spent, tc.spends)
			}
		})
	}
}
