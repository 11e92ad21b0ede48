package simtest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

var bg = context.Background()

// control calls the harness's control listener and decodes a JSON answer.
func control(t *testing.T, s *simtest.Server, method, path string, body any) map[string]any {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.ControlURL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		t.Fatalf("%s %s: HTTP %d %s", method, path, res.StatusCode, out)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("%s %s: %v: %s", method, path, err, out)
	}
	return m
}

// clause: SIM-5, HOST-1
// New starts every host, on one listener or split; the harness's
// publisher client reaches each of them.
func TestHarness_SIM5_startsEveryHost(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  []simtest.Option
		split bool
	}{
		{"combined", nil, false},
		{"split", []simtest.Option{simtest.WithSplitHosts()}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := simtest.New(t, tc.opts...)
			urls := []string{s.RewardsURL, s.BankURL, s.HotdealsURL, s.ControlURL}
			distinct := map[string]bool{}
			for _, u := range urls {
				if !strings.HasPrefix(u, "http://127.0.0.1:") {
					t.Errorf("URL %q is not on loopback", u)
				}
				distinct[u] = true
			}
			if want := map[bool]int{false: 2, true: 4}[tc.split]; len(distinct) != want {
				t.Errorf("%d distinct URLs %v, want %d", len(distinct), urls, want)
			}
			if h := control(t, s, "GET", "/__sim/health", nil); len(h) == 0 {
				t.Error("control: empty health answer")
			}
			// The publisher client: rewards, bank and hotdeals hosts.
			ref, err := s.Client.ReferenceToken(bg)
			if err != nil || ref.ReferenceKey == "" {
				t.Fatalf("rewards host, getSecuredReferenceToken: %v %+v", err, ref)
			}
			tok, err := s.Client.UserToken(bg, "VU-1")
			if err != nil || tok.Token == "" {
				t.Fatalf("rewards host, GetAuthToken: %v", err)
			}
			_, ans, err := s.Client.GetReward(bg, ref.ReferenceKey, map[string]any{"channelName": "DEMOBANK", "virtualId": "VU-1",
				"triggerEventType": "UPI", "extTransactionId": "SIM5TX1", "amount": 10.5, "dateandtime": "15012026100000"})
			if err != nil || !ans.Status || len(ans.Rewards) != 1 {
				t.Fatalf("rewards host, GetReward: %v %+v", err, ans)
			}
			if _, r, err := s.Client.FetchRewardInfo(bg, tok.Token, "VU-1", ans.Rewards[0].RewardID); err != nil || !r.Status {
				t.Errorf("rewards host, FetchRewardInfo: %v %+v", err, r)
			}
			if sess, err := s.Client.Session(bg, "VU-1"); err != nil || sess.SessionID == "" {
				t.Errorf("bank host, GenerateSessionInfoV2: %v", err)
			}
			if offers, err := s.Client.Catalogue(bg, "VU-1"); err != nil || len(offers) == 0 {
				t.Errorf("hotdeals host, getCatalogue: %v %v", err, offers)
			}
			if c, err := s.Client.FetchCouponCode(bg, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-1",
				ExtTransactionID: "SIM5C1", CoinsUsed: "100"}); err != nil || c.CouponCode == "" {
				t.Errorf("hotdeals host, fetchCouponCode: %v", err)
			}
			// Split, a path of another host is 404 there (HOST-1).
			res, err := s.HTTP.Post(s.BankURL+"/api/getSecuredReferenceToken", "application/json", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if want := map[bool]int{false: http.StatusOK, true: http.StatusNotFound}[tc.split]; res.StatusCode != want {
				t.Errorf("getSecuredReferenceToken on the bank URL: HTTP %d, want %d", res.StatusCode, want)
			}
		})
	}
}

// refused reports whether nothing accepts connections at u any more.
func refused(u string) bool {
	pu, err := url.Parse(u)
	if err != nil {
		return false
	}
	conn, err := net.DialTimeout("tcp", pu.Host, 2*time.Second)
	if err == nil {
		conn.Close()
		return false
	}
	return true
}

// clause: SIM-5
// Close waits for a request in flight (it gets its whole answer, and what
// it wrote is in the store), is idempotent (also when called from several
// goroutines at once), and leaves every URL refusing connections.
func TestHarness_SIM5_closeWaitsAndIsIdempotent(t *testing.T) {
	for _, split := range []bool{false, true} {
		t.Run(fmt.Sprintf("split=%v", split), func(t *testing.T) {
			var opts []simtest.Option
			if split {
				opts = append(opts, simtest.WithSplitHosts())
			}
			s := simtest.New(t, opts...)
			// The request is held in flight by a delay rule (real time,
			// since the rule delays on a timer): long enough for a Close
			// that did not wait to close the store under it.
			control(t, s, "POST", "/__sim/faults", map[string]any{"id": "slow", "endpoint": "GetAuthToken", "virtualId": "VU-SLOW",
				"times": 1, "action": map[string]any{"kind": "delay", "delay": "500ms"}})
			type result struct {
				tok publisher.UserToken
				err error
			}
			done := make(chan result, 1)
			go func() {
				tok, err := s.Client.UserToken(bg, "VU-SLOW")
				done <- result{tok, err}
			}()
			// Wait (bounded) until the rule fired: the request is in its delay.
			for deadline := time.Now().Add(30 * time.Second); ; {
				rules := control(t, s, "GET", "/__sim/faults", nil)["rules"].([]any)
				if rules[0].(map[string]any)["fired"] == 1.0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the delayed request never reached its fault")
				}
				time.Sleep(time.Millisecond)
			}
			// Close from several goroutines at once: each call returns only
			// when the harness is down (like httptest.Server.Close).
			var wg sync.WaitGroup
			for range 3 {
				wg.Go(func() {
					s.Close()
					for _, u := range []string{s.RewardsURL, s.BankURL, s.HotdealsURL, s.ControlURL} {
						if !refused(u) {
							t.Errorf("%s still accepts connections after Close returned", u)
						}
					}
				})
			}
			wg.Wait()
			r := <-done
			if r.err != nil || r.tok.Token == "" {
				t.Fatalf("the request in flight during Close: %v %+v, want its whole answer", r.err, r.tok)
			}
			s.Close() // idempotent, and again at cleanup
			// What the request in flight wrote was committed before the store closed.
			again := simtest.New(t, simtest.WithDataDir(s.DataDir), simtest.WithClock(s.Clock))
			user := control(t, again, "GET", "/__sim/state/users/DEMOBANK/VU-SLOW", nil)
			toks, _ := user["tokens"].([]any)
			if len(toks) != 1 || toks[0].(map[string]any)["token"] != r.tok.Token {
				t.Errorf("after restart, VU-SLOW's tokens are %v, want %s", user["tokens"], r.tok.Token)
			}
		})
	}
}

// clause: SIM-5, SIM-2
// A harness restarted on the same data folder and clock keeps tokens,
// cards, reveals and coupons; the shared clock still governs expiry.
func TestHarness_SIM5_restartWithDataDirAndClock(t *testing.T) {
	dir, clk := t.TempDir(), simtest.NewClock()
	s := simtest.New(t, simtest.WithDataDir(dir), simtest.WithClock(clk))
	ref, err := s.Client.ReferenceToken(bg)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.Client.UserToken(bg, "VU-1")
	if err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"channelName": "DEMOBANK", "virtualId": "VU-1", "triggerEventType": "UPI",
		"extTransactionId": "SIM5R1", "amount": 10.5, "dateandtime": "15012026100000"}
	_, ans, err := s.Client.GetReward(bg, ref.ReferenceKey, body)
	if err != nil || len(ans.Rewards) != 1 {
		t.Fatalf("GetReward: %v %+v", err, ans)
	}
	_, revealed, err := s.Client.FetchRewardInfo(bg, tok.Token, "VU-1", ans.Rewards[0].RewardID)
	if err != nil {
		t.Fatal(err)
	}
	claim := publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-1", ExtTransactionID: "SIM5C1", CoinsUsed: "100"}
	coupon, err := s.Client.FetchCouponCode(bg, claim)
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(10 * time.Minute)
	s.Close()

	s = simtest.New(t, simtest.WithDataDir(dir), simtest.WithClock(clk))
	now, _ := control(t, s, "GET", "/__sim/clock", nil)["now"].(string)
	if at, err := time.Parse(time.RFC3339Nano, now); err != nil || !at.Equal(clk.Now()) {
		t.Errorf("restarted harness's clock: %q, want %v", now, clk.Now())
	}
	_, list, err := s.Client.ListCards(bg, tok.Token, "")
	if err != nil || list.Total != 1 || !list.Rewards[0].IsAlreadyRewarded || list.Rewards[0].CouponCode != revealed.CouponCode {
		t.Errorf("listing after restart with the earlier token: %v %+v", err, list)
	}
	if _, again, err := s.Client.GetReward(bg, ref.ReferenceKey, body); err != nil || len(again.Rewards) != 1 || again.Rewards[0].RewardID != ans.Rewards[0].RewardID {
		t.Errorf("GetReward replay after restart: %v %+v", err, again)
	}
	if c, err := s.Client.FetchCouponCode(bg, claim); err != nil || c != coupon {
		t.Errorf("fetchCouponCode replay after restart: %v %+v, want %+v", err, c, coupon)
	}
	// The user token (30m) expires on the shared clock: 10m passed, 21m more.
	clk.Advance(21 * time.Minute)
	if _, _, err := s.Client.ListCards(bg, tok.Token, ""); err == nil {
		t.Error("the user token still works 31 minutes after it was issued")
	}
}

// recordingTB is a testing.TB whose Errorf is recorded instead of failing
// the test, to watch the harness's validation fail.
type recordingTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recordingTB) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

// clause: SIM-5
// The harness's validation can fail: s.HTTP reports (through the test's
// Errorf) an answer outside its operation's schema, and CheckAnswer
// tells why for each kind of bad answer.
func TestHarness_SIM5_validationReportsAnswersOutsideTheSchema(t *testing.T) {
	rec := &recordingTB{TB: t}
	s := simtest.New(rec)
	// A service that answers a 200 without BDATA.
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"CHANNELID":"REWARDSIM","SIGN":"AAAA"}`))
	}))
	defer bad.Close()
	good := *s.Client
	if _, err := good.ReferenceToken(bg); err != nil || len(rec.errors()) != 0 {
		t.Fatalf("a valid answer: %v, harness reported %v", err, rec.errors())
	}
	wrong := *s.Client
	wrong.RewardsURL = bad.URL
	_, _ = wrong.ReferenceToken(bg)
	if errs := rec.errors(); len(errs) != 1 || !strings.Contains(errs[0], "outside its schema") {
		t.Fatalf("an answer without BDATA: harness reported %q, want one schema error", errs)
	}

	const (
		ref    = "/api/getSecuredReferenceToken"
		list   = "/api/GetAllScratchCardsByUserId"
		coupon = "/api/fetchCouponCode"
	)
	envelope := func(bdata string) []byte {
		return []byte(`{"CHANNELID":"REWARDSIM","SIGN":"AAAA","BDATA":"` + bdata + `"}`)
	}
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, tc := range []struct {
		name         string
		method, path string
		status       int
		body         string
		want         string // "" for a valid answer, else a part of the reason
	}{
		{"signed answer", "POST", ref, 200, string(envelope(b64(`{"referenceKey":"3ZRLMFcSPk10yTlJ3ZRLMFcSPk10yTlJ3ZRLMFcSPk1","expireDate":"2026-01-15 11:00:00.000"}`))), ""},
		{"bare failure", "POST", ref, 200, `{"STATUS":"FAILURE","ERRORSTRING":"Signature Mismatch!"}`, ""},
		{"not an envelope", "POST", ref, 200, `{"referenceKey":"k"}`, "signed-or-failure"},
		{"BDATA not base64", "POST", ref, 200, string(envelope("%%%")), "base64"},
		{"BDATA outside its schema", "POST", ref, 200, string(envelope(b64(`{"expireDate":"x"}`))), "getSecuredReferenceToken.response"},
		{"a 5xx", "POST", ref, 500, `{"STATUS":"FAILURE","ERRORSTRING":"Internal Error!"}`, "5xx"},
		{"404 in another shape", "POST", ref, 404, `{"error":"nope"}`, "not-found"},
		{"bearer 401 in another shape", "GET", list, 401, `{"error":"nope"}`, "bearer-unauthorized"},
		{"bearer 401", "GET", list, 401, `{"status":false,"message":"Unauthorized: token is unknown"}`, ""},
		{"coupon error, body status only", "POST", coupon, 200, `{"status":409,"errorCode":"COUPON_EXHAUSTED","message":"m"}`, ""},
		{"coupon error, HTTP status not the body's", "POST", coupon, 429, `{"status":409,"errorCode":"COUPON_EXHAUSTED","message":"m"}`, "differs"},
		{"coupon answer outside its schema", "POST", coupon, 200, `{"status":200}`, "fetchCouponCode.response"},
		{"no operation there", "POST", "/api/nothing", 200, `{}`, "no operation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := simtest.CheckAnswer(tc.method, tc.path, tc.status, []byte(tc.body))
			got := fmt.Sprint(err)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("valid answer reported: %s", got)
			case tc.want != "" && (err == nil || !strings.Contains(got, tc.want)):
				t.Errorf("CheckAnswer = %q, want a reason naming %q", got, tc.want)
			}
		})
	}
}
