package publisher_test

import (
	"context"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/publisher"
)

var bg = context.Background()

// keyPair makes a fresh RSA key pair through the package's own PEM helpers.
func keyPair(t *testing.T, cn string) (*rsa.PrivateKey, *rsa.PublicKey) {
	t.Helper()
	keyPEM, certPEM, err := publisher.NewKeyPair(2048, cn, time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	key, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := publisher.ParsePublicKeyPEM(certPEM)
	if err != nil {
		t.Fatal(err)
	}
	if !pub.Equal(&key.PublicKey) {
		t.Fatal("the certificate does not hold the key's public half")
	}
	return key, pub
}

// fixedAnswer is a server that records each request and answers status and body.
type fixedAnswer struct {
	mu     sync.Mutex
	status int
	body   []byte
	got    []*http.Request
	bodies [][]byte
}

func (f *fixedAnswer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.got, f.bodies = append(f.got, r), append(f.bodies, raw)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.status)
	_, _ = w.Write(f.body)
}

func (f *fixedAnswer) last() (*http.Request, []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.got[len(f.got)-1], f.bodies[len(f.bodies)-1]
}

// clause: ENV-1, ENV-2
// Seal encodes the payload as base64 JSON and signs the base64 string
// itself; Verify accepts exactly that and refuses a changed BDATA, a
// signature over the decoded JSON, and another key.
func TestSealAndVerify_ENV2(t *testing.T) {
	key, pub := keyPair(t, "DEMOBANK")
	env, err := publisher.Seal(key, "DEMOBANK", map[string]string{"bName": "DEMOBANK"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(env.BDATA)
	if err != nil || string(raw) != `{"bName":"DEMOBANK"}` || env.CHANNELID != "DEMOBANK" {
		t.Fatalf("envelope %+v: BDATA %q %v", env, raw, err)
	}
	if err := publisher.Verify(pub, env.BDATA, env.SIGN); err != nil {
		t.Fatalf("own signature: %v", err)
	}
	overJSON, _ := publisher.Sign(key, string(raw))
	other, _ := keyPair(t, "OTHER")
	byOther, _ := publisher.Sign(other, env.BDATA)
	changed := base64.StdEncoding.EncodeToString([]byte(`{"bName":"OTHER"}`))
	for name, tc := range map[string][2]string{
		"changed BDATA":            {changed, env.SIGN},
		"signed over decoded JSON": {env.BDATA, overJSON},
		"signed by another key":    {env.BDATA, byOther},
		"SIGN not base64":          {env.BDATA, "%%%"},
	} {
		if err := publisher.Verify(pub, tc[0], tc[1]); err == nil {
			t.Errorf("%s: verified", name)
		}
	}
	for _, bad := range []string{"", "not PEM", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"} {
		if _, err := publisher.ParsePublicKeyPEM([]byte(bad)); err == nil {
			t.Errorf("ParsePublicKeyPEM(%q) accepted", bad)
		}
		if _, err := publisher.ParsePrivateKeyPEM([]byte(bad)); err == nil {
			t.Errorf("ParsePrivateKeyPEM(%q) accepted", bad)
		}
	}
}

// clause: ENV-3, ENV-4
// A signed endpoint's answer is read as the contract asks: the bare
// failure shape first, then the envelope's signature with the service
// key, then BDATA.
func TestCallSigned_ENV4_readsAnswersInTheContractsOrder(t *testing.T) {
	pubKey, pubCert := keyPair(t, "DEMOBANK")
	svcKey, svcCert := keyPair(t, "REWARDSIM")
	otherKey, _ := keyPair(t, "OTHER")
	signed := func(k *rsa.PrivateKey, payload string) []byte {
		bdata := base64.StdEncoding.EncodeToString([]byte(payload))
		sign, _ := publisher.Sign(k, bdata)
		raw, _ := json.Marshal(publisher.Envelope{CHANNELID: "REWARDSIM", SIGN: sign, BDATA: bdata})
		return raw
	}
	for _, tc := range []struct {
		name       string
		status     int
		body       []byte
		noVerify   bool
		wantBDATA  string
		wantErr    string // part of the error, "" for none
		wantFailed string // ERRORSTRING of a *FailureError
	}{
		{name: "signed by the service", status: 200, body: signed(svcKey, `{"sessionId":"S"}`), wantBDATA: `{"sessionId":"S"}`},
		{name: "bare failure", status: 200, body: []byte(`{"STATUS":"FAILURE","ERRORSTRING":"Signature Mismatch!"}`), wantErr: "Signature Mismatch!", wantFailed: "Signature Mismatch!"},
		{name: "bare failure, HTTP 400", status: 400, body: []byte(`{"STATUS":"FAILURE","ERRORSTRING":"Invalid Request! bName"}`), wantErr: "HTTP 400", wantFailed: "Invalid Request! bName"},
		{name: "signed by another key", status: 200, body: signed(otherKey, `{"sessionId":"S"}`), wantErr: "answer signature"},
		{name: "another key, verification off", status: 200, body: signed(otherKey, `{"sessionId":"S"}`), noVerify: true, wantBDATA: `{"sessionId":"S"}`},
		{name: "not JSON", status: 502, body: []byte(`<html>bad gateway</html>`), wantErr: "HTTP 502"},
		{name: "JSON but no envelope", status: 401, body: []byte(`{"message":"no"}`), wantErr: "HTTP 401"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &fixedAnswer{status: tc.status, body: tc.body}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			c := &publisher.Client{BankURL: ts.URL, ChannelID: "DEMOBANK", Channel: "DEMOBANK", Key: pubKey, ServiceKey: svcCert}
			if tc.noVerify {
				c.ServiceKey = nil
			}
			res, err := c.CallSigned(bg, ts.URL+"/api/GenerateSessionInfoV2", "tok", map[string]string{"bName": "DEMOBANK", "virtualId": "VU-1"})
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one naming %q", err, tc.wantErr)
			}
			if got := publisher.IsFailure(err, tc.wantFailed); got != (tc.wantFailed != "") {
				t.Errorf("IsFailure(%v, %q) = %v", err, tc.wantFailed, got)
			}
			if tc.wantBDATA != "" && string(res.BDATA) != tc.wantBDATA {
				t.Errorf("BDATA %s, want %s", res.BDATA, tc.wantBDATA)
			}
			// The request: a JSON envelope from DEMOBANK signed over the
			// base64 BDATA with the publisher's key, with the bearer token.
			req, body := srv.last()
			var env publisher.Envelope
			if err := json.Unmarshal(body, &env); err != nil || env.CHANNELID != "DEMOBANK" {
				t.Fatalf("request body %s: %v", body, err)
			}
			if err := publisher.Verify(pubCert, env.BDATA, env.SIGN); err != nil {
				t.Errorf("request signature: %v", err)
			}
			if req.Header.Get("Authorization") != "Bearer tok" || req.Header.Get("Content-Type") != "application/json" {
				t.Errorf("request headers %v", req.Header)
			}
		})
	}
}

// clause: AUTH-3, CPN-3
// Coupon-host calls carry X-CHANNELID and the ServiceAppKey header; the
// body status decides: 200 decodes data, anything else is a *CouponError
// whatever the HTTP status, and a body without a status is an *HTTPError.
func TestCouponCalls_CPN3_bodyStatusDecides(t *testing.T) {
	for _, tc := range []struct {
		name     string
		status   int
		body     string
		wantCode string // errorCode of a *CouponError
		wantHTTP bool   // an *HTTPError
	}{
		{name: "delivered", status: 200, body: `{"status":200,"message":"Fetched Successfully","data":{"id":"C1","coupon_code":"BREW-1","coupon_validity":"v","extTransactionId":"TX-1","purchase_time":"p","url":"u"}}`},
		{name: "exhausted, HTTP 200", status: 200, body: `{"status":409,"errorCode":"COUPON_EXHAUSTED","message":"none left"}`, wantCode: "COUPON_EXHAUSTED"},
		{name: "limit, HTTP mirrored", status: 429, body: `{"status":429,"errorCode":"MAX_LIMIT_REACHED","message":"limit"}`, wantCode: "MAX_LIMIT_REACHED"},
		{name: "no body status", status: 500, body: `oops`, wantHTTP: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &fixedAnswer{status: tc.status, body: []byte(tc.body)}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			c := &publisher.Client{HotdealsURL: ts.URL, ChannelID: "DEMOBANK", Channel: "DEMOBANK", AppKey: "K", SecKey: "S"}
			coupon, err := c.FetchCouponCode(bg, publisher.CouponRequest{OfferID: "OFFER-1", VirtualID: "VU-1", ExtTransactionID: "TX-1", CoinsUsed: "100"})
			var ce *publisher.CouponError
			var he *publisher.HTTPError
			switch {
			case tc.wantCode != "":
				if !publisher.IsCouponError(err, tc.wantCode) || !errors.As(err, &ce) || ce.HTTPStatus != tc.status {
					t.Fatalf("error %v, want %s with HTTP %d", err, tc.wantCode, tc.status)
				}
			case tc.wantHTTP:
				if !errors.As(err, &he) || he.StatusCode != tc.status {
					t.Fatalf("error %v, want an HTTPError %d", err, tc.status)
				}
			default:
				if err != nil || coupon.CouponCode != "BREW-1" || coupon.ExtTransactionID != "TX-1" {
					t.Fatalf("coupon %+v %v", coupon, err)
				}
			}
			req, body := srv.last()
			if req.URL.Path != "/api/fetchCouponCode" || req.Header.Get("X-CHANNELID") != "DEMOBANK" ||
				req.Header.Get("Authorization") != "ServiceAppKey K:S" || req.Header.Get("Content-Type") != "application/json" {
				t.Errorf("request %s %v", req.URL.Path, req.Header)
			}
			// coinsUsed travels as a string; channelName defaults to the client's.
			if !strings.Contains(string(body), `"coinsUsed":"100"`) || !strings.Contains(string(body), `"channelName":"DEMOBANK"`) {
				t.Errorf("request body %s", body)
			}
		})
	}
}

// clause: AUTH-1
// A bearer call's 401 is an *HTTPError with the body; another status with
// a JSON body is decoded (not eligible is a normal answer).
func TestBearerCalls_AUTH1(t *testing.T) {
	srv := &fixedAnswer{status: 401, body: []byte(`{"status":false,"message":"Unauthorized: token is unknown"}`)}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c := &publisher.Client{RewardsURL: ts.URL, Channel: "DEMOBANK"}
	_, _, err := c.ListCards(bg, "T", "page=2&limit=5")
	var he *publisher.HTTPError
	if !errors.As(err, &he) || he.StatusCode != 401 || !strings.Contains(err.Error(), "token is unknown") {
		t.Fatalf("error %v", err)
	}
	req, _ := srv.last()
	if req.URL.RawQuery != "page=2&limit=5" || req.Header.Get("Authorization") != "Bearer T" {
		t.Errorf("request %s %v", req.URL, req.Header)
	}
	srv.status, srv.body = 200, []byte(`{"status":false,"message":"failure","rewards":[],"clicktrack":[]}`)
	_, ans, err := c.GetReward(bg, "R", map[string]any{"virtualId": "VU-1"})
	if err != nil || ans.Status || ans.Message != "failure" {
		t.Fatalf("not eligible: %v %+v", err, ans)
	}
}

// Issue 55 item 6: the publisher kit's default client follows no
// redirect to another origin: a signed call redirected (307) to a second
// server is refused, naming both hosts, and the second server receives
// nothing.
func TestCallSigned_refusesARedirectToAnotherOrigin(t *testing.T) {
	var mu sync.Mutex
	elsewhere := 0
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		elsewhere++
		mu.Unlock()
	}))
	defer other.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	key, _ := keyPair(t, "publisher")
	c := &publisher.Client{Key: key, ChannelID: "DEMOBANK"}
	_, err := c.CallSigned(bg, redirector.URL+"/api/GetAuthToken", "", map[string]string{"virtualId": "VU-1"})
	if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(redirector.URL, "http://")) || !strings.Contains(err.Error(), strings.TrimPrefix(other.URL, "http://")) {
		t.Fatalf("a signed call redirected to another origin: %v, want a refusal naming both hosts", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if elsewhere != 0 {
		t.Fatalf("the other origin received %d request(s)", elsewhere)
	}
}
