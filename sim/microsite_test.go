package sim_test

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/simtest"
)

// sessionScenario is the card test scenario with sessions that expire.
func sessionScenario(switches string) string {
	return strings.Replace(cardScenario(switches), "switches:", "sessions: {ttl: 10m}\nswitches:", 1)
}

// Every way the pair can fail to authenticate gives the blank initial
// screen (HTTP 200, an empty shell, the reason in X-Rewardsim-Reason),
// and the matching pair shows the cards.
//
// clause: SESS-2
func TestMicrosite_SESS2_pairMustComeTogether(t *testing.T) {
	e := newCardEnv(t, simtest.WithScenarioYAML(sessionScenario("")))
	e.issue("user-a", "UPI")
	sessA, sessB := e.session("user-a"), e.session("user-b")
	cases := []struct {
		name  string
		query url.Values
		blank bool
	}{
		{"matching pair", url.Values{"sessionId": {sessA}, "virtualId": {"user-a"}}, false},
		{"matching pair and channel", url.Values{"sessionId": {sessA}, "virtualId": {"user-a"}, "channel": {"DEMOBANK"}}, false},
		{"session of another user", url.Values{"sessionId": {sessB}, "virtualId": {"user-a"}}, true},
		{"virtualId of another user", url.Values{"sessionId": {sessA}, "virtualId": {"user-b"}}, true},
		{"unknown sessionId", url.Values{"sessionId": {"not-a-session"}, "virtualId": {"user-a"}}, true},
		{"sessionId alone", url.Values{"sessionId": {sessA}}, true},
		{"virtualId alone", url.Values{"virtualId": {"user-a"}}, true},
		{"nothing", url.Values{}, true},
		{"another channel", url.Values{"sessionId": {sessA}, "virtualId": {"user-a"}, "channel": {"OTHERBANK"}}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, page := e.get(e.s.BankURL + "/microsite?" + tc.query.Encode())
			if res.StatusCode != http.StatusOK {
				t.Fatalf("HTTP %d", res.StatusCode)
			}
			if isBlank(page) != tc.blank {
				t.Fatalf("blank = %v, want %v (reason %q)", isBlank(page), tc.blank, res.Header.Get("X-Rewardsim-Reason"))
			}
			if tc.blank && res.Header.Get("X-Rewardsim-Reason") == "" {
				t.Fatal("a blank screen without a reason")
			}
			// The screen stays blank, as the contract says; the reason is in
			// the markup for a WebView developer's inspector.
			if why := html.EscapeString(res.Header.Get("X-Rewardsim-Reason")); tc.blank && !strings.Contains(page, `data-reason="`+why+`"`) {
				t.Fatalf("blank page lacks data-reason=%q: %s", why, page)
			}
			if !tc.blank && !strings.Contains(page, `class="tile unscratched`) {
				t.Fatal("the matching pair does not show the user's card")
			}
		})
	}
	t.Run("expired session", func(t *testing.T) {
		fresh := e.session("user-a")
		e.s.Clock.Advance(10 * time.Minute)
		res, page := e.get(e.micrositeURL(fresh, "user-a"))
		if !isBlank(page) || !strings.Contains(res.Header.Get("X-Rewardsim-Reason"), "expired") {
			t.Fatalf("expired session: blank %v, reason %q", isBlank(page), res.Header.Get("X-Rewardsim-Reason"))
		}
	})
	t.Run("scratch with a mismatched pair", func(t *testing.T) {
		id := e.issue("user-a", "UPI")
		var ans struct{ Message string }
		res := e.post(e.s.BankURL+"/microsite/scratch", map[string]any{"sessionId": e.session("user-b"), "virtualId": "user-a", "rewardId": id}, &ans)
		if res.StatusCode != http.StatusForbidden || e.stored("DEMOBANK", id).Reward != nil {
			t.Fatalf("HTTP %d %q; the card must stay unscratched", res.StatusCode, ans.Message)
		}
	})
}

// The page lists the user's cards only, unscratched first, and scratching
// another user's card reveals nothing.
//
// clause: SESS-3
func TestMicrosite_SESS3_ownCardsOnly(t *testing.T) {
	e := newCardScenario(t, "")
	mine, theirs := e.issue("me", "UPI"), e.issue("them", "UPI")
	sess := e.session("me")
	_, page := e.get(e.micrositeURL(sess, "me"))
	if !strings.Contains(page, `id="card-`+itoa(int(mine))+`"`) || strings.Contains(page, `id="card-`+itoa(int(theirs))+`"`) {
		t.Fatal("the page must show my card and not theirs")
	}
	var ans struct{ Message string }
	res := e.post(e.s.BankURL+"/microsite/scratch", map[string]any{"sessionId": sess, "virtualId": "me", "rewardId": theirs}, &ans)
	if res.StatusCode != http.StatusNotFound || e.stored("DEMOBANK", theirs).Reward != nil {
		t.Fatalf("scratching another user's card: HTTP %d %q", res.StatusCode, ans.Message)
	}
	var first, again struct {
		First    bool
		Tile     string
		Callback string
	}
	e.post(e.s.BankURL+"/microsite/scratch", map[string]any{"sessionId": sess, "virtualId": "me", "rewardId": mine}, &first)
	e.post(e.s.BankURL+"/microsite/scratch", map[string]any{"sessionId": sess, "virtualId": "me", "rewardId": mine}, &again)
	code := e.stored("DEMOBANK", mine).Reward.CouponCode
	if !first.First || again.First || again.Callback != "" || !strings.Contains(again.Tile, code) {
		t.Fatalf("second scratch: first=%v again.first=%v callback=%q; the tile must show the same reward %s", first.First, again.First, again.Callback, code)
	}
}

// Scratching many cards at once from the page and through FetchRewardInfo
// reveals each exactly once (one-shot under -race).
//
// clause: SESS-3
func TestMicrosite_SESS3_concurrentScratchOneShot(t *testing.T) {
	e := newCardScenario(t, "")
	id := e.issue("racer", "STOCK")
	sess := e.session("racer")
	tok := e.userToken("racer")
	const n = 8
	firsts := make(chan bool, 2*n)
	errs := make(chan error, n)
	for range n {
		go func() {
			raw, _ := json.Marshal(map[string]any{"sessionId": sess, "virtualId": "racer", "rewardId": id})
			res, err := http.Post(e.s.BankURL+"/microsite/scratch", "application/json", strings.NewReader(string(raw)))
			if err != nil {
				firsts <- false
				return
			}
			var ans struct{ First bool }
			_ = json.NewDecoder(res.Body).Decode(&ans)
			res.Body.Close()
			firsts <- ans.First
		}()
		go func() {
			_, _, err := e.reveal(tok, "racer", id)
			errs <- err
			firsts <- err == nil
		}()
	}
	won := 0
	for range 2 * n {
		if <-firsts {
			won++
		}
	}
	for range n {
		<-errs
	}
	if won != 1 {
		t.Fatalf("%d first reveals of one card, want exactly 1", won)
	}
}

// A miss (the pool's fallback) is delivered through the same callback by
// default, or not at all with switches.sdk.missCallback skip.
//
// clause: SDK-3
func TestMicrosite_SDK3_missCallbackSwitch(t *testing.T) {
	for _, tc := range []struct {
		sw      string
		deliver bool
	}{{"", true}, {"deliver", true}, {"skip", false}} {
		t.Run("missCallback="+tc.sw, func(t *testing.T) {
			yaml := cardScenario("")
			if tc.sw != "" {
				yaml = strings.Replace(yaml, "switches:\n  cards: {}", "switches:\n  cards: {}\n  sdk: {missCallback: "+tc.sw+"}", 1)
			}
			e := newCardEnv(t, simtest.WithScenarioYAML(yaml))
			sess := e.session("unlucky")
			for range 5 { // use up the stock of five
				id := e.issue("lucky", "STOCK")
				e.mustReveal(e.userToken("lucky"), "lucky", id)
			}
			miss, win := e.issue("unlucky", "STOCK"), e.issue("unlucky", "UPI")
			var ans struct{ Callback string }
			e.post(e.s.BankURL+"/microsite/scratch", map[string]any{"sessionId": sess, "virtualId": "unlucky", "rewardId": miss}, &ans)
			if !e.stored("DEMOBANK", miss).Reward.Fallback {
				t.Fatal("the card should have missed")
			}
			if got := ans.Callback != ""; got != tc.deliver {
				t.Fatalf("miss delivered = %v, want %v", got, tc.deliver)
			}
			if tc.deliver {
				var cb struct {
					IsFallback bool   `json:"isFallback"`
					CouponCode string `json:"couponCode"`
				}
				if err := schemasForTest(t).ValidateJSON("sdk-reveal-callback", []byte(ans.Callback)); err != nil {
					t.Fatal(err)
				}
				if json.Unmarshal([]byte(ans.Callback), &cb); !cb.IsFallback || cb.CouponCode != "" {
					t.Fatalf("miss payload %+v", cb)
				}
			}
			e.post(e.s.BankURL+"/microsite/scratch", map[string]any{"sessionId": sess, "virtualId": "unlucky", "rewardId": win}, &ans)
			if ans.Callback == "" {
				t.Fatal("a win must always be delivered")
			}
		})
	}
}

// The SDK launch takes its inputs as a query, a form or a JSON body; an
// invalid pair or an unreadable payload gives the blank initial screen;
// DeeplinkInfo focuses its card.
//
// clause: SDK-2
func TestSDKLaunch_SDK2_inputs(t *testing.T) {
	e := newCardScenario(t, "")
	id := e.issue("launcher", "UPI")
	sess := e.session("launcher")
	link := "rewardsim://scratchcard?channel=DEMOBANK&rewardId=" + itoa(int(id))
	payload := `{"Component":"SCRATCHCARD","IsEmployee":"N","Language":"en","DeeplinkInfo":"` + link + `","customerId":"C-9"}`
	launchURL := e.s.BankURL + "/sdk/launch"
	form := func(v url.Values) string {
		res, err := e.s.HTTP.PostForm(launchURL, v)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		return string(raw)
	}
	jsonBody := func(v map[string]any) string {
		raw, _ := json.Marshal(v)
		res, err := e.s.HTTP.Post(launchURL, "application/json", strings.NewReader(string(raw)))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ = io.ReadAll(res.Body)
		return string(raw)
	}
	query := func(v url.Values) string { _, p := e.get(launchURL + "?" + v.Encode()); return p }
	ok := url.Values{"virtualId": {"launcher"}, "sessionId": {sess}, "channel": {"DEMOBANK"}, "payload": {payload}}
	with := func(k, v string) url.Values {
		c := url.Values{}
		for kk, vv := range ok {
			c[kk] = vv
		}
		c.Set(k, v)
		return c
	}
	focused := `class="tile unscratched focus"`
	cases := []struct {
		name  string
		page  string
		blank bool
		focus bool
	}{
		{"GET query", query(ok), false, true},
		{"POST form", form(ok), false, true},
		{"POST JSON, payload object", jsonBody(map[string]any{"virtualId": "launcher", "sessionId": sess, "channel": "DEMOBANK", "payload": json.RawMessage(payload)}), false, true},
		{"POST JSON, payload string", jsonBody(map[string]any{"virtualId": "launcher", "sessionId": sess, "channelName": "DEMOBANK", "payload": payload}), false, true},
		{"no payload", query(with("payload", "")), false, false},
		{"deep link of another channel", query(with("payload", strings.Replace(payload, "channel=DEMOBANK", "channel=OTHERBANK", 1))), false, false},
		{"wrong virtualId", query(with("virtualId", "someone-else")), true, false},
		{"unknown sessionId", query(with("sessionId", "nope")), true, false},
		{"other channel", query(with("channel", "OTHERBANK")), true, false},
		{"payload not JSON", query(with("payload", "{Component")), true, false},
		{"payload unknown key", query(with("payload", `{"Colour":"red"}`)), true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if isBlank(tc.page) != tc.blank {
				t.Fatalf("blank = %v, want %v", isBlank(tc.page), tc.blank)
			}
			if strings.Contains(tc.page, focused) != tc.focus {
				t.Fatalf("card focused = %v, want %v", !tc.focus, tc.focus)
			}
		})
	}
	if !strings.Contains(cases[0].page, `data-customer-id="C-9"`) || !strings.Contains(cases[0].page, `lang="en"`) {
		t.Fatal("the launch payload is not carried into the page")
	}
	numeric := query(with("payload", `{"customerId":12345678901,"IsEmployee":true,"Language":"hi-IN"}`))
	if !strings.Contains(numeric, `data-customer-id="12345678901"`) || !strings.Contains(numeric, `data-is-employee="true"`) || !strings.Contains(numeric, `lang="hi-IN"`) {
		t.Fatal("scalar payload values must be carried as written")
	}
	if !isBlank(query(with("payload", `{"Language":"not a tag"}`))) {
		t.Fatal("a Language that is not a language tag must leave the blank screen")
	}
}

// Imagery and assets are served by the simulator itself.
//
// clause: SESS-3
func TestMicrosite_SESS3_assetsServedLocally(t *testing.T) {
	e := newCardEnv(t)
	for path, ctype := range map[string]string{
		"/assets/app.js": "javascript", "/assets/style.css": "text/css",
		"/assets/img/coffee-cover.svg": "image/svg+xml", "/assets/img/camp-demo-banner.svg": "image/svg+xml",
		"/assets/img/anything-at-all-icon.svg": "image/svg+xml",
	} {
		res, body := e.get(e.s.BankURL + path)
		if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("Content-Type"), ctype) || body == "" {
			t.Errorf("%s: HTTP %d %s", path, res.StatusCode, res.Header.Get("Content-Type"))
		}
		if strings.Contains(body, "http://") && !strings.Contains(body, "http://www.w3.org/2000/svg") || strings.Contains(body, "https://") {
			t.Errorf("%s refers to an external address", path)
		}
	}
	if res, _ := e.get(e.s.BankURL + "/assets/img/../app.js.svg"); res.StatusCode == http.StatusOK {
		t.Error("a path outside the image names is served")
	}
}

// In split mode the microsite, the SDK emulation and the assets live on
// the bank host only.
//
// clause: SESS-3
// clause: SDK-1
func TestMicrosite_splitHostsBankOnly(t *testing.T) {
	e := newCardEnv(t, simtest.WithSplitHosts())
	sess := e.session("split-user")
	for _, host := range []struct {
		base string
		want int
	}{{e.s.BankURL, http.StatusOK}, {e.s.RewardsURL, http.StatusNotFound}, {e.s.HotdealsURL, http.StatusNotFound}} {
		for _, path := range []string{"/microsite?sessionId=" + sess + "&virtualId=split-user", "/sdk/launch", "/assets/app.js"} {
			want := host.want
			if strings.HasPrefix(path, "/assets/") {
				want = http.StatusOK // the simulator's own resources answer on every host
			}
			res, err := http.Get(host.base + path)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != want {
				t.Errorf("%s%s: HTTP %d, want %d", host.base, path, res.StatusCode, want)
			}
		}
	}
	r := sdkReq("SPLIT1")
	if code, ans := e.sdkIssue("/sdk/getScratchCardDetails", r); code != http.StatusOK || !ans.Status {
		t.Fatalf("SDK issuance on the bank host: HTTP %d %+v", code, ans)
	}
}

// An expired card shows as expired, offers no scratch, and cannot be
// revealed from the page (the same expiry rule as FetchRewardInfo).
//
// clause: SESS-3
func TestMicrosite_SESS3_expiredCard(t *testing.T) {
	e := newCardScenario(t, "")
	id := e.issue("late", "EXPIRE")
	sess := e.session("late")
	_, page := e.get(e.micrositeURL(sess, "late"))
	if !strings.Contains(page, `data-action="scratch"`) || strings.Contains(page, "expired-note") {
		t.Fatal("a fresh card must be scratchable")
	}
	e.s.Clock.Advance(time.Hour)
	_, page = e.get(e.micrositeURL(sess, "late"))
	if !strings.Contains(page, `class="tile unscratched expired"`) || strings.Contains(page, `data-action="scratch"`) {
		t.Fatal("an expired card must show as expired without a scratch button")
	}
	var ans struct{ Message string }
	res := e.post(e.s.BankURL+"/microsite/scratch", map[string]any{"sessionId": sess, "virtualId": "late", "rewardId": id}, &ans)
	if res.StatusCode != http.StatusGone || e.stored("DEMOBANK", id).Reward != nil {
		t.Fatalf("scratching an expired card: HTTP %d %q", res.StatusCode, ans.Message)
	}
}

// clause: SESS-3
// Generated imagery is deterministic: only the last "-kind" is the kind.
func TestMicrosite_SESS3_imageKindIsTheLastSuffix(t *testing.T) {
	s := simtest.New(t)
	var first string
	for i := 0; i < 20; i++ {
		st, ct, body := get(t, s.BankURL+"/assets/img/x-icon-banner.svg")
		if st != 200 || !strings.HasPrefix(ct, "image/svg+xml") || !strings.Contains(body, `width="1200"`) {
			t.Fatalf("HTTP %d %s: want the 1200-wide banner kind", st, ct)
		}
		if i == 0 {
			first = body
		} else if body != first {
			t.Fatal("the same image name drew different images")
		}
	}
}
