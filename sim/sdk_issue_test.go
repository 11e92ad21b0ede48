package sim_test

import (
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/rewardsim/rewardsim/scenarios"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// issueAnswer is the SDK client issuance result (2.7).
type issueAnswer struct {
	Status        bool   `json:"status"`
	Message       string `json:"message"`
	Banner        string `json:"banner"`
	DeepLink      string `json:"deepLink"`
	IsPopup       bool   `json:"isPopup"`
	PopupBanner   string `json:"popupBanner"`
	PopupDeepLink string `json:"popupDeepLink"`
}

// sdkEnv runs the default scenario, with emptySessionId set when given.
func sdkEnv(t *testing.T, emptySessionID string) *cardEnv {
	t.Helper()
	raw, err := fs.ReadFile(scenarios.FS, scenarios.Default)
	if err != nil {
		t.Fatal(err)
	}
	yaml := string(raw)
	if emptySessionID != "" {
		yaml = strings.Replace(yaml, "emptySessionId: refuse", "emptySessionId: "+emptySessionID, 1)
	}
	return newCardEnv(t, simtest.WithScenarioYAML(yaml))
}

// sdkReq is a valid getScratchCardDetails request.
func sdkReq(ext string) map[string]any {
	return map[string]any{
		"channelName": "DEMOBANK", "triggerEventType": "UPI", "amount": 250.5, "extTransactionId": ext,
		"dateandtime": "15012026100000", "virtualId": "sdk-user", "sessionId": " ", "merchantVPA": "shop@demobank",
	}
}

func (e *cardEnv) sdkIssue(path string, body any) (int, issueAnswer) {
	e.t.Helper()
	var ans issueAnswer
	res := e.post(e.s.BankURL+path, body, &ans)
	return res.StatusCode, ans
}

// rawBody lets a test send an amount literal exactly as written.
type rawBody string

func (r rawBody) MarshalJSON() ([]byte, error) { return []byte(r), nil }

// Each parameter rule of getScratchCardDetails / sendRewardCardRequest:
// a broken rule is HTTP 400 with status false and a message naming the
// parameter; every answer is validated against sdk-issue.response by the
// harness.
//
// clause: SDK-1
func TestSDKIssue_SDK1_parameterRules(t *testing.T) {
	e := sdkEnv(t, "")
	n := 0
	with := func(k string, v any) map[string]any {
		n++
		r := sdkReq("RULE" + itoa(n))
		if v == nil {
			delete(r, k)
		} else {
			r[k] = v
		}
		return r
	}
	cases := []struct {
		name  string
		body  any
		ok    bool
		field string
	}{
		{"valid UPI", with("merchantVPA", "shop@demobank"), true, ""},
		{"UPI without merchantVPA", with("merchantVPA", nil), false, "merchantVPA"},
		{"UPI with blank merchantVPA", with("merchantVPA", " "), false, "merchantVPA"},
		{"IMPS without merchantVPA", func() map[string]any { r := with("merchantVPA", nil); r["triggerEventType"] = "IMPS"; return r }(), true, ""},
		{"extTransactionId of 256", with("extTransactionId", strings.Repeat("A", 256)), true, ""},
		{"extTransactionId of 257", with("extTransactionId", strings.Repeat("A", 257)), false, "extTransactionId"},
		{"extTransactionId not alphanumeric", with("extTransactionId", "TXN-1"), false, "extTransactionId"},
		{"extTransactionId empty", with("extTransactionId", ""), false, "extTransactionId"},
		{"amount two decimals", rawBody(`{"channelName":"DEMOBANK","triggerEventType":"IMPS","amount":10.25,"extTransactionId":"AMT2","dateandtime":"15012026100000","virtualId":"sdk-user","sessionId":" "}`), true, ""},
		{"amount three decimals", rawBody(`{"channelName":"DEMOBANK","triggerEventType":"IMPS","amount":10.125,"extTransactionId":"AMT3","dateandtime":"15012026100000","virtualId":"sdk-user","sessionId":" "}`), false, "amount"},
		{"amount exponent", rawBody(`{"channelName":"DEMOBANK","triggerEventType":"IMPS","amount":1e3,"extTransactionId":"AMTE","dateandtime":"15012026100000","virtualId":"sdk-user","sessionId":" "}`), false, "amount"},
		{"amount as a string", with("amount", "10.00"), false, "amount"},
		{"amount negative", with("amount", -1), false, "amount"},
		{"amount missing", with("amount", nil), false, "amount"},
		{"dateandtime ISO", with("dateandtime", "2026-01-15T10:00"), false, "dateandtime"},
		{"dateandtime day 32", with("dateandtime", "32012026100000"), false, "dateandtime"},
		{"sessionId single space", with("sessionId", " "), true, ""},
		{"sessionId empty (refused by default)", with("sessionId", ""), false, "sessionId"},
		{"sessionId a real session", with("sessionId", "x"), false, "sessionId"},
		{"sessionId missing", with("sessionId", nil), false, "sessionId"},
		{"virtualId missing", with("virtualId", nil), false, "virtualId"},
		{"triggerEventType missing", with("triggerEventType", nil), false, "triggerEventType"},
		{"additionalParams documented keys", with("additionalParams", `{"city":"Pune","age":31,"isNewUser":true}`), true, ""},
		{"additionalParams unknown key", with("additionalParams", `{"colour":"red"}`), false, "additionalParams"},
		{"additionalParams not JSON", with("additionalParams", `city=Pune`), false, "additionalParams"},
		{"additionalParams nested object", with("additionalParams", map[string]any{"city": "Pune"}), false, "additionalParams"},
		{"unknown channel", with("channelName", "NOBANK"), false, "channelName"},
		{"unknown field", with("colour", "red"), false, "colour"},
	}
	for _, path := range []string{"/sdk/getScratchCardDetails", "/sdk/sendRewardCardRequest"} {
		for _, tc := range cases {
			t.Run(path+"/"+tc.name, func(t *testing.T) {
				code, ans := e.sdkIssue(path, tc.body)
				if tc.ok {
					if code != http.StatusOK || !ans.Status || ans.DeepLink == "" || ans.Banner == "" {
						t.Fatalf("HTTP %d %+v, want a card", code, ans)
					}
					return
				}
				if code != http.StatusBadRequest || ans.Status || !strings.Contains(ans.Message, tc.field) {
					t.Fatalf("HTTP %d %+v, want 400 naming %s", code, ans, tc.field)
				}
			})
		}
	}
}

// switches.sdk.emptySessionId in both positions: an empty sessionId is
// refused (default) or accepted like the single space, which is accepted
// in both.
//
// clause: SDK-1
func TestSDKIssue_SDK1_emptySessionIdSwitch(t *testing.T) {
	for _, tc := range []struct {
		sw         string
		emptyValid bool
	}{{"", false}, {"refuse", false}, {"accept", true}} {
		t.Run("emptySessionId="+tc.sw, func(t *testing.T) {
			e := sdkEnv(t, tc.sw)
			for _, sid := range []string{" ", ""} {
				r := sdkReq("SESS" + itoa(len(sid)))
				r["sessionId"] = sid
				code, ans := e.sdkIssue("/sdk/getScratchCardDetails", r)
				want := sid == " " || tc.emptyValid
				if ans.Status != want || (code == http.StatusOK) != want {
					t.Fatalf("sessionId %q: HTTP %d %+v, want issued=%v", sid, code, ans, want)
				}
			}
		})
	}
}

// Issuance is GetReward's card-issuing code: idempotent on
// extTransactionId (also under parallel requests), not eligible is a
// normal status-false answer, the deep link opens the card in the
// microsite, and isPopup follows the scenario's sdk.popups.
//
// clause: SDK-1
func TestSDKIssue_SDK1_issuanceIdempotentAndPopup(t *testing.T) {
	e := sdkEnv(t, "")
	const path = "/sdk/getScratchCardDetails"
	var wg sync.WaitGroup
	links := make([]string, 8)
	for i := range links {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, ans := e.sdkIssue(path, sdkReq("SAMEONE"))
			links[i] = ans.DeepLink
		}()
	}
	wg.Wait()
	for _, l := range links {
		if l == "" || l != links[0] {
			t.Fatalf("parallel duplicates of one extTransactionId gave deep links %v, want one card", links)
		}
	}
	_, other := e.sdkIssue(path, sdkReq("SAMETWO"))
	if other.DeepLink == links[0] {
		t.Fatal("a new extTransactionId must issue a new card")
	}
	_, ios := e.sdkIssue("/sdk/sendRewardCardRequest", sdkReq("SAMEONE"))
	if ios.DeepLink != links[0] {
		t.Fatal("the iOS name is the same issuance: the duplicate must return the same card")
	}

	small := sdkReq("POP1")
	big := sdkReq("POP2")
	big["amount"] = 1500
	_, s := e.sdkIssue(path, small)
	_, b := e.sdkIssue(path, big)
	if s.IsPopup || s.PopupBanner != "" || s.PopupDeepLink != "" {
		t.Fatalf("below sdk.popups minAmount: %+v", s)
	}
	if !b.IsPopup || b.PopupBanner != e.s.BankURL+"/assets/img/camp-demo-coupon.svg" || b.PopupDeepLink != b.DeepLink || b.Banner != e.s.BankURL+"/assets/img/camp-demo-banner.svg" {
		t.Fatalf("popup campaign: %+v", b)
	}

	none := sdkReq("NOPE1")
	none["triggerEventType"] = "NEFT"
	code, ne := e.sdkIssue(path, none)
	if code != http.StatusOK || ne.Status || ne.Message != "failure" || ne.DeepLink != "" {
		t.Fatalf("not eligible: HTTP %d %+v", code, ne)
	}

	// The deep link opens the issued card in the SDK launch.
	sess := e.session("sdk-user")
	page := e.s.BankURL + "/sdk/launch?virtualId=sdk-user&sessionId=" + sess + "&payload=" +
		strings.NewReplacer("{", "%7B", "}", "%7D", `"`, "%22", ":", "%3A", "/", "%2F", "?", "%3F", "&", "%26", "=", "%3D").Replace(`{"DeeplinkInfo":"`+other.DeepLink+`"}`)
	_, html := e.get(page)
	if !strings.Contains(html, `class="tile unscratched focus"`) {
		t.Fatal("the issuance deep link does not open its card")
	}
}
