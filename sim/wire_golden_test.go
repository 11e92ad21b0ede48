package sim_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/golden"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// wireTape records every exchange a publisher client makes, byte for byte.
type wireTape struct {
	next http.RoundTripper
	mu   sync.Mutex
	out  []wireExchange
}

type wireExchange struct {
	method, path string
	reqHeader    http.Header
	reqBody      []byte
	status       int
	header       http.Header
	body         []byte
}

func (w *wireTape) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		reqBody, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	res, err := w.next.RoundTrip(req)
	if err != nil {
		return res, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(body))
	w.mu.Lock()
	w.out = append(w.out, wireExchange{req.Method, req.URL.RequestURI(), req.Header.Clone(), reqBody, res.StatusCode, res.Header.Clone(), body})
	w.mu.Unlock()
	return res, err
}

// volatile are the values that differ from run to run: random tokens,
// session ids and coupon codes. Each distinct value is named by its first
// appearance, so a golden file still pins where a value is carried.
var volatile = regexp.MustCompile(`[A-Za-z0-9_-]{32,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// transcript renders the exchanges: request line, the request body, the
// status, every answer header but Date, and the answer body byte for
// byte. An envelope's BDATA is shown decoded (base64 is one-to-one) and
// its SIGN as a digest-free marker, as RSA signs over random tokens.
func (w *wireTape) transcript() []byte {
	names := map[string]string{}
	rename := func(s string) string {
		return volatile.ReplaceAllStringFunc(s, func(v string) string {
			if n, ok := names[v]; ok {
				return n
			}
			n := fmt.Sprintf("<v%d>", len(names)+1)
			names[v] = n
			return n
		})
	}
	var b strings.Builder
	host := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`)
	name := func(s string) string { return host.ReplaceAllString(rename(s), "http://<host>") }
	for _, x := range w.out {
		fmt.Fprintf(&b, "=== %s %s\n", x.method, x.path)
		for _, k := range []string{"Authorization", "X-Channelid"} {
			if v := x.reqHeader.Get(k); v != "" {
				fmt.Fprintf(&b, "> %s: %s\n", k, name(v))
			}
		}
		switch {
		case len(x.reqBody) > 4096:
			fmt.Fprintf(&b, "> (%d bytes)\n", len(x.reqBody))
		case len(x.reqBody) > 0:
			fmt.Fprintf(&b, "> %s\n", name(unseal(x.reqBody)))
		}
		fmt.Fprintf(&b, "< %d\n", x.status)
		keys := make([]string, 0, len(x.header))
		for k := range x.header {
			if k != "Date" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "< %s: %s\n", k, name(strings.Join(x.header[k], ", ")))
		}
		fmt.Fprintf(&b, "< %s\n", name(unseal(x.body)))
	}
	return []byte(b.String())
}

// unseal shows an envelope with BDATA decoded and SIGN replaced; any other
// body is returned as it is.
func unseal(body []byte) string {
	var env map[string]json.RawMessage
	if json.Unmarshal(body, &env) != nil || env["BDATA"] == nil {
		return string(body)
	}
	out := string(body)
	var bdata, sign string
	if json.Unmarshal(env["BDATA"], &bdata) == nil {
		if raw, err := base64.StdEncoding.DecodeString(bdata); err == nil {
			out = strings.Replace(out, string(env["BDATA"]), "decoded("+string(raw)+")", 1)
		}
	}
	if json.Unmarshal(env["SIGN"], &sign) == nil && sign != "" {
		out = strings.Replace(out, string(env["SIGN"]), `"<sign>"`, 1)
	}
	return out
}

// The wire bytes of a recorded publisher flow and its failures, pinned in
// fixtures/wire/full-flow.txt (regenerate with go test ./sim/ -run
// WireBytes -update). It guards refactors of the request pipeline: the
// same requests must get the same answers, byte for byte.
//
// clause: SIM-4
func TestWireBytes_fullFlowAndFailures(t *testing.T) {
	s := simtest.New(t)
	tape := &wireTape{next: s.HTTP.Transport}
	c := *s.Client
	c.HTTP = &http.Client{Transport: tape}
	ctx := context.Background()

	fullFlow(t, &c)
	ref, user := tokens(t, &c)
	if _, _, err := c.BankCard(ctx, bankReq("VU-1", "WIRE-BANK-1")); err != nil {
		t.Fatal(err)
	}

	raw := func(method, url string, header http.Header, body string) {
		t.Helper()
		var b []byte
		if body != "" {
			b = []byte(body)
		}
		if _, err := c.Do(ctx, method, url, header, b); err != nil {
			t.Fatal(err)
		}
	}
	bearer := func(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }
	other := c
	other.Key = s.PublisherKey
	signedAs := func(channelID string, payload any) string {
		env, err := publisher.Seal(s.PublisherKey, channelID, payload)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(env)
		return string(b)
	}
	// Signed endpoints: not JSON, wrong shape, unknown channel, bad
	// signature, a payload outside its schema, too large.
	raw("POST", c.RewardsURL+"/api/GetAuthToken", nil, `{not json`)
	raw("POST", c.RewardsURL+"/api/GetAuthToken", nil, `{"CHANNELID":"DEMOBANK"}`)
	raw("POST", c.RewardsURL+"/api/GetAuthToken", nil, signedAs("NOSUCH", map[string]string{"virtualId": "VU-1", "channelName": "DEMOBANK"}))
	env, _ := publisher.Seal(s.PublisherKey, "DEMOBANK", map[string]string{"virtualId": "VU-1", "channelName": "DEMOBANK"})
	env.SIGN = base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 256))
	badSig, _ := json.Marshal(env)
	raw("POST", c.RewardsURL+"/api/GetAuthToken", nil, string(badSig))
	raw("POST", c.RewardsURL+"/api/getSecuredReferenceToken", nil, signedAs("DEMOBANK", map[string]any{"bName": 7}))
	raw("POST", c.BankURL+"/api/GenerateSessionInfoV2", nil, signedAs("DEMOBANK", map[string]string{"bName": "demobank", "virtualId": "VU-1"}))
	raw("POST", c.RewardsURL+"/api/GetAuthToken", nil, `{"CHANNELID":"DEMOBANK","BDATA":"`+strings.Repeat("A", 1<<20+8)+`"}`)
	raw("POST", c.BankURL+"/api/RegisterEvent", nil, signedAs("DEMOBANK", map[string]string{"virtualId": "VU-1"}))
	raw("POST", c.BankURL+"/api/ExitEvent", nil, signedAs("DEMOBANK", map[string]string{"virtualId": "VU-1"}))

	// Bearer endpoints: no token, a user token where a reference token
	// belongs, bad JSON, a bad field, not eligible, a second reveal, a card
	// that is not there, a bad page.
	getReward := func(tx, trigger string) string {
		return fmt.Sprintf(`{"channelName":"DEMOBANK","virtualId":"VU-1","triggerEventType":%q,"extTransactionId":%q,"amount":10,"dateandtime":"15012026100000"}`, trigger, tx)
	}
	raw("POST", c.RewardsURL+"/api/GetReward", nil, getReward("W-1", "UPI"))
	raw("POST", c.RewardsURL+"/api/GetReward", bearer(user), getReward("W-1", "UPI"))
	raw("POST", c.RewardsURL+"/api/GetReward", bearer(ref), `{"channelName":`)
	raw("POST", c.RewardsURL+"/api/GetReward", bearer(ref), `{"channelName":"DEMOBANK","virtualId":"VU-1","triggerEventType":"UPI","extTransactionId":"W-2","amount":10,"dateandtime":"yesterday"}`)
	raw("POST", c.RewardsURL+"/api/GetReward", bearer(ref), getReward("W-3", "NEFT"))
	raw("POST", c.RewardsURL+"/api/GetReward", bearer(ref), `{"x":"`+strings.Repeat("A", 1<<20+8)+`"}`)
	res, got, err := c.GetReward(ctx, ref, publisher.GetRewardRequest{ChannelName: "DEMOBANK", VirtualID: "VU-1", TriggerEventType: "UPI", ExtTransactionID: "W-4", Amount: ptr(12.0), DateAndTime: "15012026100000"})
	if err != nil || len(got.Rewards) != 1 {
		t.Fatalf("GetReward: %v %s", err, res.Body)
	}
	id := got.Rewards[0].RewardID
	for range 2 {
		_, _, _ = c.FetchRewardInfo(ctx, user, "VU-1", id)
	}
	_, _, _ = c.FetchRewardInfo(ctx, user, "VU-1", 999999)
	raw("POST", c.RewardsURL+"/api/FetchRewardInfo", bearer(user), `{"CHANNELID":"DEMOBANK"}`)
	raw("GET", c.RewardsURL+"/api/GetAllScratchCardsByUserId?page=0", bearer(user), "")
	raw("GET", c.RewardsURL+"/api/GetAllScratchCardsByUserId?limit=2&page=1", bearer(user), "")
	raw("GET", c.RewardsURL+"/api/GetAllScratchCardsByUserId", bearer("nonsense"), "")

	// The bank's card and the SDK.
	_, _, _ = c.BankCard(ctx, bankReq("VU-1", ""))
	bank := bankReq("VU-2", "WIRE-BANK-2")
	bank.MCC = "0000"
	_, _, _ = c.BankCard(ctx, bank)
	sdk := func(body map[string]any) string { b, _ := json.Marshal(body); return string(b) }
	raw("POST", c.BankURL+"/sdk/getScratchCardDetails", nil, sdk(sdkReq("WSDK1")))
	r := sdkReq("WSDK2")
	r["triggerEventType"] = "NEFT"
	raw("POST", c.BankURL+"/sdk/sendRewardCardRequest", nil, sdk(r))
	delete(r, "merchantVPA")
	r["sessionId"] = ""
	raw("POST", c.BankURL+"/sdk/getScratchCardDetails", nil, sdk(r))

	// The coupon host: no credentials, wrong keys, wrong content type, an
	// unknown offer, a wrong price, the purchase limit, the same claim again.
	key := c.APIKeyHeader()
	raw("POST", c.HotdealsURL+"/api/fetchCouponCode", nil, `{"channelName":"DEMOBANK"}`)
	wrong := key.Clone()
	wrong.Set("Authorization", "ServiceAppKey DEMOAPPKEY:nope")
	raw("POST", c.HotdealsURL+"/api/getCatalogue", wrong, `{"channelName":"DEMOBANK"}`)
	text := key.Clone()
	text.Set("Content-Type", "text/plain")
	raw("POST", c.HotdealsURL+"/api/getCatalogue", text, `{"channelName":"DEMOBANK"}`)
	claim := func(offer, tx, coins string) string {
		return fmt.Sprintf(`{"channelName":"DEMOBANK","offerId":%q,"virtualId":"VU-3","extTransactionId":%q,"coinsUsed":%q}`, offer, tx, coins)
	}
	raw("POST", c.HotdealsURL+"/api/fetchCouponCode", key, claim("NO-SUCH", "W-C-1", "100"))
	raw("POST", c.HotdealsURL+"/api/fetchCouponCode", key, claim("OFFER-DEMO", "W-C-2", "1"))
	for i := range 3 {
		raw("POST", c.HotdealsURL+"/api/fetchCouponCode", key, claim("OFFER-DEMO", fmt.Sprintf("W-C-L%d", i), "100"))
	}
	raw("POST", c.HotdealsURL+"/api/fetchCouponCode", key, claim("OFFER-DEMO", "W-C-L0", "100"))
	raw("POST", c.HotdealsURL+"/api/fetchCouponCode", key, `{"channelName":"DEMOBANK","offerId":"OFFER-DEMO"}`)
	raw("POST", c.HotdealsURL+"/api/getUserCoupons", key, `{"channelName":"DEMOBANK","virtualId":"VU-3"}`)
	raw("POST", c.HotdealsURL+"/api/getCatalogue", key, `{"channelName":"DEMOBANK","virtualId":"VU-3"}`)

	// Injected faults, each in its endpoint's own shape.
	faults := []struct {
		rule       map[string]any
		method     string
		url        string
		header     http.Header
		body       string
		signedBody any
	}{
		{map[string]any{"endpoint": "GetAuthToken", "action": map[string]any{"kind": "internal-error"}}, "POST", c.RewardsURL + "/api/GetAuthToken", nil, "", map[string]string{"virtualId": "VU-1", "channelName": "DEMOBANK"}},
		{map[string]any{"endpoint": "GetAuthToken", "action": map[string]any{"kind": "malformed-body"}}, "POST", c.RewardsURL + "/api/GetAuthToken", nil, "", map[string]string{"virtualId": "VU-1", "channelName": "DEMOBANK"}},
		{map[string]any{"endpoint": "GenerateSessionInfoV2", "action": map[string]any{"kind": "signature-mismatch"}}, "POST", c.BankURL + "/api/GenerateSessionInfoV2", nil, "", map[string]string{"virtualId": "VU-1", "bName": "DEMOBANK"}},
		{map[string]any{"endpoint": "GetScratchCardForBank", "action": map[string]any{"kind": "not-eligible"}}, "POST", c.BankURL + "/api/GetScratchCardForBank", nil, "", bankReq("VU-1", "WIRE-BANK-F")},
		{map[string]any{"endpoint": "GetReward", "action": map[string]any{"kind": "internal-error"}}, "POST", c.RewardsURL + "/api/GetReward", bearer(ref), getReward("W-F-1", "UPI"), nil},
		{map[string]any{"endpoint": "GetReward", "action": map[string]any{"kind": "not-eligible"}}, "POST", c.RewardsURL + "/api/GetReward", bearer(ref), getReward("W-F-2", "UPI"), nil},
		{map[string]any{"endpoint": "GetReward", "action": map[string]any{"kind": "signature-mismatch"}}, "POST", c.RewardsURL + "/api/GetReward", bearer(ref), getReward("W-F-3", "UPI"), nil},
		{map[string]any{"endpoint": "GetAllScratchCardsByUserId", "action": map[string]any{"kind": "http-status", "status": 503}}, "GET", c.RewardsURL + "/api/GetAllScratchCardsByUserId", bearer(user), "", nil},
		{map[string]any{"endpoint": "GetAllScratchCardsByUserId", "action": map[string]any{"kind": "internal-error"}}, "GET", c.RewardsURL + "/api/GetAllScratchCardsByUserId", bearer(user), "", nil},
		{map[string]any{"endpoint": "getScratchCardDetails", "action": map[string]any{"kind": "signature-mismatch"}}, "POST", c.BankURL + "/sdk/getScratchCardDetails", nil, sdk(sdkReq("WSDKF1")), nil},
		{map[string]any{"endpoint": "getScratchCardDetails", "action": map[string]any{"kind": "internal-error"}}, "POST", c.BankURL + "/sdk/getScratchCardDetails", nil, sdk(sdkReq("WSDKF2")), nil},
		{map[string]any{"endpoint": "fetchCouponCode", "action": map[string]any{"kind": "coupon-error", "errorCode": "COUPON_EXHAUSTED"}}, "POST", c.HotdealsURL + "/api/fetchCouponCode", key, claim("OFFER-DEMO", "W-C-F1", "100"), nil},
		{map[string]any{"endpoint": "getCatalogue", "action": map[string]any{"kind": "not-eligible"}}, "POST", c.HotdealsURL + "/api/getCatalogue", key, `{"channelName":"DEMOBANK"}`, nil},
		{map[string]any{"endpoint": "getUserCoupons", "action": map[string]any{"kind": "malformed-body"}}, "POST", c.HotdealsURL + "/api/getUserCoupons", key, `{"channelName":"DEMOBANK","virtualId":"VU-3"}`, nil},
		{map[string]any{"endpoint": "getUserCoupons", "action": map[string]any{"kind": "internal-error"}}, "POST", c.HotdealsURL + "/api/getUserCoupons", key, `{"channelName":"DEMOBANK","virtualId":"VU-3"}`, nil},
	}
	for _, f := range faults {
		f.rule["times"] = 1
		ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", f.rule)
		body := f.body
		if f.signedBody != nil {
			body = signedAs("DEMOBANK", f.signedBody)
		}
		raw(f.method, f.url, f.header, body)
	}

	golden.Check(t, "wire/full-flow.txt", tape.transcript())
}

func ptr[T any](v T) *T { return &v }
