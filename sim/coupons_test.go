package sim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/internal/golden"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// couponYAML is a scenario with two channels and offers for every coupon
// outcome; switches (YAML lines under switches.coupons) and faults vary.
func couponYAML(switches, faults string) string {
	var b strings.Builder
	b.WriteString(`version: 1
name: coupons
seed: 7
channels:
  - name: DEMOBANK
    certificateFile: builtin:publisher-dev.crt
    appKey: DEMOAPPKEY
    secKey: DEMOSECKEY
  - name: OTHERBANK
    certificateFile: builtin:publisher-dev.crt
    appKey: OTHERAPP
    secKey: OTHERSEC
offers:
  DEMOBANK:
    - {id: OFF-OPEN, title: Open, coins: 100, stock: 100000, purchaseLimit: 2}
    - {id: OFF-MORE, title: Another, coins: 100, stock: 100000}
    - {id: OFF-TEN, title: Ten, coins: 10, stock: 10}
    - {id: OFF-EMPTY, title: Empty, coins: 10, stock: 0}
    - {id: OFF-VIP, title: VIP, coins: 10, stock: 10, targeting: {virtualIds: [VIP-1]}}
    - {id: OFF-OFF, title: Retired, coins: 10, stock: 10, active: false}
    - {id: OFF-LATER, title: Later, coins: 10, stock: 10, validity: {from: "2026-02-01T00:00:00+05:30"}}
    - {id: OFF-LIST, title: Listed, coins: 10, codes: {list: [CODE-A, CODE-B]}, validity: {to: "2026-01-20T00:00:00+05:30"}}
  OTHERBANK:
    - {id: OFF-OPEN, title: Other channel's offer of the same id, coins: 1, stock: 1}
`)
	if switches != "" {
		b.WriteString("switches:\n  coupons:\n")
		for _, l := range strings.Split(strings.TrimSpace(switches), "\n") {
			b.WriteString("    " + strings.TrimSpace(l) + "\n")
		}
	}
	b.WriteString("faults:\n  - {endpoint: fetchCouponCode, virtualId: FAULT-500, action: {kind: internal-error}}\n")
	b.WriteString(faults)
	return b.String()
}

func couponSim(t testing.TB, switches, faults string) *simtest.Server {
	return simtest.New(t, simtest.WithScenarioYAML(couponYAML(switches, faults)))
}

func claim(offer, user, tx string) publisher.CouponRequest {
	return publisher.CouponRequest{OfferID: offer, VirtualID: user, ChannelName: "DEMOBANK", ExtTransactionID: tx, CoinsUsed: "100"}
}

// hostless replaces the harness's random host:port, so golden files are stable.
func hostless(s *simtest.Server, body []byte) []byte {
	return bytes.ReplaceAll(body, []byte(strings.TrimPrefix(s.HotdealsURL, "http://")), []byte("HOTDEALS"))
}

// clause: CPN-1, CPN-2
func TestFetchCouponCode_CPN2_successShape(t *testing.T) {
	s := simtest.New(t) // the default scenario: OFFER-DEMO for DEMOBANK
	ctx := context.Background()
	res, err := s.Client.PostAPIKey(ctx, "/api/fetchCouponCode", claim("OFFER-DEMO", "VU-1", "TX-1"))
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 {
		t.Fatalf("HTTP %d", res.StatusCode)
	}
	golden.Check(t, "coupons/fetch-success.json", hostless(s, res.Body))

	c, err := s.Client.FetchCouponCode(ctx, claim("OFFER-DEMO", "VU-1", "TX-2"))
	if err != nil {
		t.Fatal(err)
	}
	// ISO 8601 on the simulated clock, in the scenario's +05:30.
	if c.PurchaseTime != "2026-01-15T10:00:00+05:30" || c.CouponValidity != "2026-02-14T10:00:00+05:30" {
		t.Errorf("purchase_time %q, coupon_validity %q", c.PurchaseTime, c.CouponValidity)
	}
	if c.ID != "OFFER-DEMO" || c.ExtTransactionID != "TX-2" || c.CouponCode != "DEMO-000002" || c.OrderID != "" {
		t.Errorf("coupon %+v", c)
	}
}

// clause: CPN-1
func TestFetchCouponCode_CPN1_malformedIsInvalidRequestNamingTheField(t *testing.T) {
	s := couponSim(t, "", "")
	ctx := context.Background()
	good := map[string]any{"offerId": "OFF-OPEN", "virtualId": "U1", "channelName": "DEMOBANK", "extTransactionId": "T1", "coinsUsed": "100"}
	without := func(k string) map[string]any {
		m := map[string]any{}
		for kk, v := range good {
			if kk != k {
				m[kk] = v
			}
		}
		return m
	}
	with := func(k string, v any) map[string]any {
		m := without(k)
		m[k] = v
		return m
	}
	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"no offerId", without("offerId"), "offerId"},
		{"no virtualId", without("virtualId"), "virtualId"},
		{"no channelName", without("channelName"), "channelName"},
		{"no extTransactionId", without("extTransactionId"), "extTransactionId"},
		{"no coinsUsed", without("coinsUsed"), "coinsUsed"},
		{"empty offerId", with("offerId", ""), "offerId"},
		{"coinsUsed not digits", with("coinsUsed", "ten"), "coinsUsed"},
		{"coinsUsed negative", with("coinsUsed", "-1"), "coinsUsed"},
		{"coinsUsed a number", with("coinsUsed", 100), "coinsUsed"},
		{"virtualId a number", with("virtualId", 7), "virtualId"},
		{"channelName of another channel", with("channelName", "OTHERBANK"), "channelName"},
		{"channelName in another case", with("channelName", "demobank"), "channelName"},
		{"not JSON", []byte("{offerId:"), "body"},
		{"an array", []byte(`[1]`), "body"},
		{"empty body", []byte(``), "body"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := s.Client.PostAPIKey(ctx, "/api/fetchCouponCode", tc.body)
			if err != nil {
				t.Fatal(err)
			}
			ce := couponErr(t, res)
			if ce == nil || ce.Status != 400 || ce.ErrorCode != "INVALID_REQUEST" || !strings.Contains(ce.Message, tc.field) {
				t.Fatalf("got HTTP %d %s, want 400 INVALID_REQUEST naming %s", res.StatusCode, res.Body, tc.field)
			}
		})
	}
	t.Run("Content-Type not JSON", func(t *testing.T) {
		h := s.Client.APIKeyHeader()
		h.Set("Content-Type", "text/plain")
		res, err := s.Client.Do(ctx, "POST", s.HotdealsURL+"/api/fetchCouponCode", h, []byte(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(res.Body, []byte(`"INVALID_REQUEST"`)) || !bytes.Contains(res.Body, []byte("Content-Type")) {
			t.Fatalf("got %s", res.Body)
		}
	})
	t.Run("body over 1 MiB", func(t *testing.T) {
		big := []byte(`{"offerId":"` + strings.Repeat("x", 1<<20) + `"}`)
		res, err := s.Client.PostAPIKey(ctx, "/api/fetchCouponCode", big)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode >= 500 || !bytes.Contains(res.Body, []byte(`"INVALID_REQUEST"`)) {
			t.Fatalf("got HTTP %d %s", res.StatusCode, res.Body)
		}
	})
}

// couponErr reads a coupon-host answer's error, nil for a success.
func couponErr(t *testing.T, res *publisher.Response) *publisher.CouponError {
	t.Helper()
	var ce publisher.CouponError
	if err := json.Unmarshal(res.Body, &ce); err != nil {
		t.Fatalf("answer %s: %v", res.Body, err)
	}
	if ce.Status == 200 {
		return nil
	}
	ce.HTTPStatus = res.StatusCode
	return &ce
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// clause: AUTH-3
func TestCouponHost_AUTH3_wrongOrMissingCredentialsAre401(t *testing.T) {
	s := couponSim(t, "", "")
	ctx := context.Background()
	cases := []struct {
		name    string
		channel string // "-" removes the header
		auth    string
	}{
		{"no X-CHANNELID", "-", "ServiceAppKey DEMOAPPKEY:DEMOSECKEY"},
		{"unknown X-CHANNELID", "NOBANK", "ServiceAppKey DEMOAPPKEY:DEMOSECKEY"},
		{"X-CHANNELID in another case", "demobank", "ServiceAppKey DEMOAPPKEY:DEMOSECKEY"},
		{"no Authorization", "DEMOBANK", "-"},
		{"Bearer scheme", "DEMOBANK", "Bearer DEMOAPPKEY:DEMOSECKEY"},
		{"scheme in another case", "DEMOBANK", "serviceappkey DEMOAPPKEY:DEMOSECKEY"},
		{"no colon", "DEMOBANK", "ServiceAppKey DEMOAPPKEYDEMOSECKEY"},
		{"wrong APP_KEY", "DEMOBANK", "ServiceAppKey WRONG:DEMOSECKEY"},
		{"wrong SEC_KEY", "DEMOBANK", "ServiceAppKey DEMOAPPKEY:WRONG"},
		{"keys swapped", "DEMOBANK", "ServiceAppKey DEMOSECKEY:DEMOAPPKEY"},
		{"another channel's keys", "DEMOBANK", "ServiceAppKey OTHERAPP:OTHERSEC"},
	}
	bodies := map[string]any{
		"/api/fetchCouponCode": claim("OFF-OPEN", "U1", "T-AUTH"),
		"/api/getUserCoupons":  map[string]string{"offerId": "OFF-OPEN", "virtualId": "U1", "channelName": "DEMOBANK"},
		"/api/getCatalogue":    map[string]string{"channelName": "DEMOBANK"},
	}
	mirrored := couponSim(t, "httpStatus: mirror", "")
	for _, mirror := range []bool{false, true} {
		for path, body := range bodies {
			for _, tc := range cases {
				t.Run(fmt.Sprintf("mirror=%v%s/%s", mirror, path, tc.name), func(t *testing.T) {
					srv := s
					if mirror {
						srv = mirrored
					}
					b := body
					h := srv.Client.APIKeyHeader()
					if tc.channel == "-" {
						h.Del("X-CHANNELID")
					} else {
						h.Set("X-CHANNELID", tc.channel)
					}
					if tc.auth == "-" {
						h.Del("Authorization")
					} else {
						h.Set("Authorization", tc.auth)
					}
					res, err := srv.Client.Do(ctx, "POST", srv.HotdealsURL+path, h, mustJSON(t, b))
					if err != nil {
						t.Fatal(err)
					}
					wantHTTP := 200
					if mirror {
						wantHTTP = 401
					}
					if res.StatusCode != wantHTTP || !bytes.Contains(res.Body, []byte(`"status":401`)) || !bytes.Contains(res.Body, []byte(`"errorCode":"UNAUTHORIZED"`)) {
						t.Fatalf("got HTTP %d %s, want body 401 UNAUTHORIZED over HTTP %d", res.StatusCode, res.Body, wantHTTP)
					}
				})
			}
		}
	}
	// Nothing was delivered by any refused call.
	list, err := s.Client.UserCoupons(ctx, "U1", "OFF-OPEN")
	if err != nil || len(list) != 0 {
		t.Fatalf("coupons after refused calls: %v %v", list, err)
	}
	// The right credentials pass on every path (the refusals above are not blanket ones).
	for path, body := range bodies {
		res, err := s.Client.PostAPIKey(ctx, path, body)
		if err != nil || couponErr(t, res) != nil {
			t.Fatalf("%s with the right credentials: %v %s", path, err, res.Body)
		}
	}
}

// clause: CPN-3
func TestFetchCouponCode_CPN3_everyErrorCode_bothHTTPStatusReadings(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []string{"body", "mirror"} {
		t.Run(mode, func(t *testing.T) {
			s := couponSim(t, "httpStatus: "+mode, "")
			// Use up U-LIM's purchase_limit of 2 on OFF-OPEN.
			for i := range 2 {
				if _, err := s.Client.FetchCouponCode(ctx, claim("OFF-OPEN", "U-LIM", fmt.Sprint("LIM-", i))); err != nil {
					t.Fatal(err)
				}
			}
			badKey := *s.Client
			badKey.SecKey = "WRONG"
			cases := []struct {
				name   string
				client *publisher.Client
				req    publisher.CouponRequest
				status int
				code   string
			}{
				{"stock ran out", s.Client, claim("OFF-EMPTY", "U1", "E1"), 409, "COUPON_EXHAUSTED"},
				{"targeting excludes the user", s.Client, claim("OFF-VIP", "U1", "E2"), 403, "NON_ELIGIBLE"},
				{"purchase_limit reached", s.Client, claim("OFF-OPEN", "U-LIM", "E3"), 429, "MAX_LIMIT_REACHED"},
				{"unknown offer", s.Client, claim("NO-SUCH", "U1", "E4"), 404, "INVALID_OFFER"},
				{"inactive offer", s.Client, claim("OFF-OFF", "U1", "E5"), 404, "INVALID_OFFER"},
				{"offer not open yet", s.Client, claim("OFF-LATER", "U1", "E6"), 404, "INVALID_OFFER"},
				{"malformed", s.Client, claim("OFF-OPEN", "U1", ""), 400, "INVALID_REQUEST"},
				{"bad SEC_KEY", &badKey, claim("OFF-OPEN", "U1", "E8"), 401, "UNAUTHORIZED"},
				{"platform failure (scenario fault)", s.Client, claim("OFF-OPEN", "FAULT-500", "E9"), 500, "INTERNAL_ERROR"},
			}
			for _, tc := range cases {
				t.Run(tc.code+"/"+tc.name, func(t *testing.T) {
					res, err := tc.client.PostAPIKey(ctx, "/api/fetchCouponCode", tc.req)
					if err != nil {
						t.Fatal(err)
					}
					ce := couponErr(t, res)
					if ce == nil || ce.Status != tc.status || ce.ErrorCode != tc.code {
						t.Fatalf("got HTTP %d %s, want %d %s", res.StatusCode, res.Body, tc.status, tc.code)
					}
					want := 200
					if mode == "mirror" {
						want = tc.status
					}
					if res.StatusCode != want {
						t.Errorf("HTTP %d, want %d (httpStatus: %s)", res.StatusCode, want, mode)
					}
					if mode == "body" && tc.name != "inactive offer" && tc.name != "offer not open yet" {
						golden.Check(t, "coupons/error-"+strings.ToLower(tc.code)+".json", res.Body)
					}
				})
			}
		})
	}
}

// clause: CPN-3
func TestFetchCouponCode_CPN3_bodyModeDefaultAndNo5xxForBadInput(t *testing.T) {
	s := simtest.New(t) // default scenario: httpStatus body
	ctx := context.Background()
	for _, vid := range []string{"FAULT-500", "VU-OK"} {
		res, err := s.Client.PostAPIKey(ctx, "/api/fetchCouponCode", publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: vid, ChannelName: "DEMOBANK", ExtTransactionID: "X-" + vid, CoinsUsed: "100"})
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != 200 {
			t.Errorf("%s: HTTP %d, want 200 in body mode", vid, res.StatusCode)
		}
	}
	// The default scenario's other refusals.
	for _, tc := range []struct{ offer, code string }{{"OFFER-VIP", "NON_ELIGIBLE"}, {"OFFER-RETIRED", "INVALID_OFFER"}} {
		_, err := s.Client.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: tc.offer, VirtualID: "VU-1", ExtTransactionID: "D-" + tc.offer, CoinsUsed: "1"})
		if !publisher.IsCouponError(err, tc.code) {
			t.Errorf("%s: %v, want %s", tc.offer, err, tc.code)
		}
	}
}

// clause: CPN-5
func TestFetchCouponCode_CPN5_duplicateSwitch(t *testing.T) {
	ctx := context.Background()
	// replay: is the switch's former name, still read.
	for _, sw := range []string{"duplicate: original", "duplicate: reject", "replay: original", "replay: reject"} {
		_, mode, _ := strings.Cut(sw, ": ")
		t.Run(sw, func(t *testing.T) {
			s := couponSim(t, sw, "")
			first, err := s.Client.FetchCouponCode(ctx, claim("OFF-OPEN", "U1", "TX-R"))
			if err != nil {
				t.Fatal(err)
			}
			s.Clock.Advance(time.Minute)
			again, err := s.Client.FetchCouponCode(ctx, claim("OFF-OPEN", "U1", "TX-R"))
			switch mode {
			case "original":
				if err != nil || again != first {
					t.Fatalf("duplicate answered %+v, %v; want the earlier result %+v", again, err, first)
				}
			case "reject":
				if !publisher.IsCouponError(err, "DUPLICATE_TRANSACTION") {
					t.Fatalf("duplicate answered %+v, %v; want 409 DUPLICATE_TRANSACTION", again, err)
				}
			}
			list, err := s.Client.UserCoupons(ctx, "U1", "OFF-OPEN")
			if err != nil || len(list) != 1 {
				t.Fatalf("coupons %v %v, want exactly one", list, err)
			}
		})
	}
}

// clause: CPN-5
func TestFetchCouponCode_CPN5_sameExtTransactionIdOnAnotherOffer(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []string{"reject", "new", "first"} {
		t.Run(mode, func(t *testing.T) {
			s := couponSim(t, "crossOffer: "+mode, "")
			first, err := s.Client.FetchCouponCode(ctx, claim("OFF-OPEN", "U1", "TX-X"))
			if err != nil {
				t.Fatal(err)
			}
			other, err := s.Client.FetchCouponCode(ctx, claim("OFF-MORE", "U1", "TX-X"))
			more, _ := s.Client.UserCoupons(ctx, "U1", "OFF-MORE")
			switch mode {
			case "reject":
				if !publisher.IsCouponError(err, "DUPLICATE_TRANSACTION") || len(more) != 0 {
					t.Fatalf("got %+v %v, %d coupons; want 409 DUPLICATE_TRANSACTION and none", other, err, len(more))
				}
			case "new":
				if err != nil || other.ID != "OFF-MORE" || other.CouponCode == first.CouponCode || len(more) != 1 {
					t.Fatalf("got %+v %v, %d coupons; want a new coupon of OFF-MORE", other, err, len(more))
				}
			case "first":
				if err != nil || other != first || len(more) != 0 {
					t.Fatalf("got %+v %v, %d coupons; want the first result %+v", other, err, len(more), first)
				}
			}
		})
	}
}

// clause: CPN-7
func TestFetchCouponCode_CPN7_orderIdSwitch(t *testing.T) {
	ctx := context.Background()
	for _, on := range []bool{false, true} {
		t.Run(fmt.Sprint("orderId=", on), func(t *testing.T) {
			s := couponSim(t, fmt.Sprint("orderId: ", on), "")
			c, err := s.Client.FetchCouponCode(ctx, claim("OFF-OPEN", "U1", "TX-O"))
			if err != nil {
				t.Fatal(err)
			}
			if (c.OrderID != "") != on {
				t.Fatalf("orderId %q with the switch %v", c.OrderID, on)
			}
			list, _ := s.Client.UserCoupons(ctx, "U1", "OFF-OPEN")
			if len(list) != 1 || list[0].OrderID != c.OrderID {
				t.Fatalf("getUserCoupons %+v, want orderId %q", list, c.OrderID)
			}
			if on {
				res, _ := s.Client.PostAPIKey(ctx, "/api/fetchCouponCode", claim("OFF-OPEN", "U1", "TX-O"))
				golden.Check(t, "coupons/fetch-success-orderid.json", hostless(s, res.Body))
			}
		})
	}
}

func TestFetchCouponCode_coinsUsedSwitches(t *testing.T) {
	ctx := context.Background()
	num := map[string]any{"offerId": "OFF-OPEN", "virtualId": "U1", "channelName": "DEMOBANK", "extTransactionId": "TX-N", "coinsUsed": 100}
	for _, mode := range []string{"refuse", "accept"} {
		t.Run("coinsAsNumber="+mode, func(t *testing.T) {
			s := couponSim(t, "coinsAsNumber: "+mode, "")
			res, err := s.Client.PostAPIKey(ctx, "/api/fetchCouponCode", num)
			if err != nil {
				t.Fatal(err)
			}
			delivered := bytes.Contains(res.Body, []byte(`"status":200`))
			refused := bytes.Contains(res.Body, []byte(`"INVALID_REQUEST"`)) && bytes.Contains(res.Body, []byte("coinsUsed"))
			if (mode == "accept") != delivered || (mode == "refuse") != refused {
				t.Fatalf("coinsUsed as a number with %s: %s", mode, res.Body)
			}
		})
	}
	for _, mode := range []string{"accept", "refuse"} {
		t.Run("coinsMismatch="+mode, func(t *testing.T) {
			s := couponSim(t, "coinsMismatch: "+mode, "")
			req := claim("OFF-OPEN", "U1", "TX-M")
			req.CoinsUsed = "99" // OFF-OPEN costs 100
			_, err := s.Client.FetchCouponCode(ctx, req)
			if mode == "accept" && err != nil {
				t.Fatalf("mismatched coins refused with accept: %v", err)
			}
			if mode == "refuse" && !publisher.IsCouponError(err, "INVALID_REQUEST") {
				t.Fatalf("mismatched coins with refuse: %v, want INVALID_REQUEST", err)
			}
			req.CoinsUsed, req.ExtTransactionID = "100", "TX-M2"
			if _, err := s.Client.FetchCouponCode(ctx, req); err != nil {
				t.Fatalf("the right price refused: %v", err)
			}
		})
	}
}

// parallel runs n calls at once and counts answers by errorCode ("" for success).
func parallel(t *testing.T, n int, call func(i int) (publisher.Coupon, error)) (map[string]int, []publisher.Coupon) {
	t.Helper()
	var mu sync.Mutex
	counts := map[string]int{}
	var got []publisher.Coupon
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c, err := call(i)
			var ce *publisher.CouponError
			code := ""
			if errors.As(err, &ce) {
				code = ce.ErrorCode
			} else if err != nil {
				code = "transport: " + err.Error()
			}
			mu.Lock()
			defer mu.Unlock()
			counts[code]++
			if code == "" {
				got = append(got, c)
			}
		}()
	}
	close(start)
	wg.Wait()
	return counts, got
}

// clause: CPN-6
func TestFetchCouponCode_CPN6_neverOversoldUnderConcurrency(t *testing.T) {
	s := couponSim(t, "", "")
	ctx := context.Background()

	t.Run("100 claims against stock 10", func(t *testing.T) {
		counts, got := parallel(t, 100, func(i int) (publisher.Coupon, error) {
			return s.Client.FetchCouponCode(ctx, claim("OFF-TEN", fmt.Sprint("U-", i), fmt.Sprint("S-", i)))
		})
		if counts[""] != 10 || counts["COUPON_EXHAUSTED"] != 90 || len(counts) != 2 {
			t.Fatalf("answers %v, want 10 coupons and 90 COUPON_EXHAUSTED", counts)
		}
		codes := map[string]bool{}
		for _, c := range got {
			codes[c.CouponCode] = true
		}
		if len(codes) != 10 {
			t.Fatalf("%d distinct codes among 10 coupons", len(codes))
		}
	})
	t.Run("20 claims by one user against purchase_limit 2", func(t *testing.T) {
		counts, _ := parallel(t, 20, func(i int) (publisher.Coupon, error) {
			return s.Client.FetchCouponCode(ctx, claim("OFF-OPEN", "U-ONE", fmt.Sprint("L-", i)))
		})
		if counts[""] != 2 || counts["MAX_LIMIT_REACHED"] != 18 || len(counts) != 2 {
			t.Fatalf("answers %v, want 2 coupons and 18 MAX_LIMIT_REACHED", counts)
		}
		list, err := s.Client.UserCoupons(ctx, "U-ONE", "OFF-OPEN")
		if err != nil || len(list) != 2 {
			t.Fatalf("getUserCoupons %d %v, want 2", len(list), err)
		}
	})
	// clause: CPN-5
	t.Run("12 claims with one extTransactionId", func(t *testing.T) {
		counts, got := parallel(t, 12, func(i int) (publisher.Coupon, error) {
			return s.Client.FetchCouponCode(ctx, claim("OFF-MORE", "U-SAME", "ONE-TX"))
		})
		if counts[""] != 12 {
			t.Fatalf("answers %v, want 12 identical results (duplicate: original)", counts)
		}
		for _, c := range got {
			if c != got[0] {
				t.Fatalf("answers differ: %+v and %+v", c, got[0])
			}
		}
		list, err := s.Client.UserCoupons(ctx, "U-SAME", "OFF-MORE")
		if err != nil || len(list) != 1 {
			t.Fatalf("getUserCoupons %d %v, want exactly one coupon", len(list), err)
		}
	})
	t.Run("12 claims with one extTransactionId, duplicate reject", func(t *testing.T) {
		r := couponSim(t, "duplicate: reject", "")
		counts, _ := parallel(t, 12, func(i int) (publisher.Coupon, error) {
			return r.Client.FetchCouponCode(ctx, claim("OFF-MORE", "U-SAME", "ONE-TX"))
		})
		if counts[""] != 1 || counts["DUPLICATE_TRANSACTION"] != 11 {
			t.Fatalf("answers %v, want 1 coupon and 11 DUPLICATE_TRANSACTION", counts)
		}
	})
}

// clause: CPN-4
func TestFetchCouponCode_CPN4_timeoutAfterCommitThenReconcile(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []string{"commit-then-delay", "commit-then-drop"} {
		t.Run(kind, func(t *testing.T) {
			action := "{kind: commit-then-drop}"
			if kind == "commit-then-delay" {
				action = "{kind: commit-then-delay, delay: 1m}"
			}
			s := couponSim(t, "", "  - {endpoint: fetchCouponCode, virtualId: U-SLOW, times: 1, action: "+action+"}\n")
			impatient := *s.Client
			impatient.HTTP = &http.Client{Transport: s.HTTP.Transport, Timeout: time.Second}

			_, err := impatient.FetchCouponCode(ctx, claim("OFF-OPEN", "U-SLOW", "TX-T"))
			var ne net.Error
			switch {
			case err == nil:
				t.Fatal("the answer was not withheld")
			case kind == "commit-then-delay" && !(errors.As(err, &ne) && ne.Timeout()):
				t.Fatalf("want a client timeout, got %v", err)
			}
			// Reconcile: present means delivered.
			list, err := s.Client.UserCoupons(ctx, "U-SLOW", "OFF-OPEN")
			if err != nil || len(list) != 1 || list[0].ExtTransactionID != "TX-T" || list[0].State != "delivered" {
				t.Fatalf("getUserCoupons %+v %v, want TX-T delivered", list, err)
			}
			// Retry with the same extTransactionId: the same coupon, not a second one.
			again, err := s.Client.FetchCouponCode(ctx, claim("OFF-OPEN", "U-SLOW", "TX-T"))
			if err != nil || again.CouponCode != list[0].CouponCode {
				t.Fatalf("retry %+v %v, want coupon %s", again, err, list[0].CouponCode)
			}
			list, _ = s.Client.UserCoupons(ctx, "U-SLOW", "OFF-OPEN")
			if len(list) != 1 {
				t.Fatalf("%d coupons after the retry, want 1", len(list))
			}
		})
	}
}

// clause: CPN-8
func TestFetchCouponCode_CPN8_clickAndRedirectURLServedAndRecorded(t *testing.T) {
	s := simtest.New(t)
	ctx := context.Background()
	c, err := s.Client.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU 1&x", ExtTransactionID: "TX-URL", CoinsUsed: "100"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(c.URL)
	if err != nil || !strings.HasPrefix(c.URL, s.HotdealsURL+"/") {
		t.Fatalf("url %q is not on the simulator's hotdeals host", c.URL)
	}
	// order={orderId} of the offer's url.query is left out: switches.coupons.orderId is off (CPN-7).
	if q := u.Query(); q.Get("vid") != "VU 1&x" || q.Get("txn") != "TX-URL" || q.Has("order") {
		t.Fatalf("url query %q does not carry exactly the identifiers", u.RawQuery)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for range 2 {
		res, err := noFollow.Get(c.URL)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusFound || res.Header.Get("Location") != "https://brand.example/offers/OFFER-DEMO" {
			t.Fatalf("follow answered %d to %q", res.StatusCode, res.Header.Get("Location"))
		}
	}
	clicks, err := sim.CouponClicks(s.Sim, "DEMOBANK", "OFFER-DEMO")
	if err != nil || len(clicks) != 2 || clicks[0].Query != u.RawQuery || !clicks[0].At.Equal(simtest.Start) {
		t.Fatalf("recorded %+v %v, want two follows with the query", clicks, err)
	}
	res, err := noFollow.Get(s.HotdealsURL + "/hotdeals/r/DEMOBANK/NO-SUCH?vid=1")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown offer url answered %d", res.StatusCode)
	}
}

// clause: CPN-9, WH-4
func TestGetUserCoupons_CPN9_listsExtTransactionIdsAndInvalidation(t *testing.T) {
	s := couponSim(t, "", "")
	ctx := context.Background()
	for _, tx := range []string{"TX-A", "TX-B"} {
		if _, err := s.Client.FetchCouponCode(ctx, claim("OFF-LIST", "U1", tx)); err != nil {
			t.Fatal(err)
		}
		s.Clock.Advance(time.Hour)
	}
	if _, err := s.Client.FetchCouponCode(ctx, claim("OFF-LIST", "U2", "TX-C")); !publisher.IsCouponError(err, "COUPON_EXHAUSTED") {
		t.Fatalf("third claim of a two-code list: %v", err)
	}
	list, err := s.Client.UserCoupons(ctx, "U1", "OFF-LIST")
	if err != nil || len(list) != 2 || list[0].ExtTransactionID != "TX-A" || list[1].ExtTransactionID != "TX-B" ||
		list[0].CouponCode != "CODE-A" || list[1].CouponCode != "CODE-B" {
		t.Fatalf("list %+v %v", list, err)
	}
	// coupon_validity never runs past the offer's validity.to.
	if list[0].CouponValidity != "2026-01-20T00:00:00+05:30" {
		t.Errorf("coupon_validity %q", list[0].CouponValidity)
	}
	other, _ := s.Client.UserCoupons(ctx, "U2", "OFF-LIST")
	if len(other) != 0 {
		t.Fatalf("another user's list %+v", other)
	}

	at := s.Clock.Now().Add(time.Hour)
	if n, err := sim.InvalidateCoupons(s.Sim, "DEMOBANK", "OFF-LIST", at, "BRAND_CALLED_OUT"); err != nil || n != 2 {
		t.Fatalf("invalidate: %d %v", n, err)
	}
	list, _ = s.Client.UserCoupons(ctx, "U1", "OFF-LIST")
	if list[0].State != "delivered" {
		t.Fatalf("state %q before the invalidation takes effect", list[0].State)
	}
	s.Clock.Advance(time.Hour)
	res, err := s.Client.PostAPIKey(ctx, "/api/getUserCoupons", map[string]string{"offerId": "OFF-LIST", "virtualId": "U1", "channelName": "DEMOBANK"})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "coupons/user-coupons-invalidated.json", hostless(s, res.Body))
	list, _ = s.Client.UserCoupons(ctx, "U1", "OFF-LIST")
	for _, c := range list {
		if c.State != "invalidated" || c.Reason != "BRAND_CALLED_OUT" {
			t.Fatalf("coupon %+v, want invalidated", c)
		}
	}
}

// clause: CPN-10
func TestGetCatalogue_CPN10_offerIdsAndStock(t *testing.T) {
	s := simtest.New(t)
	ctx := context.Background()
	ids := func(vid string) []string {
		offers, err := s.Client.Catalogue(ctx, vid)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, o := range offers {
			out = append(out, o.ID)
		}
		return out
	}
	if got := fmt.Sprint(ids("")); got != "[OFFER-DEMO OFFER-VIP]" {
		t.Errorf("catalogue %s, want the open offers", got)
	}
	if got := fmt.Sprint(ids("VU-1")); got != "[OFFER-DEMO]" {
		t.Errorf("catalogue for VU-1 %s, want only what targeting admits", got)
	}
	if got := fmt.Sprint(ids("VIP-1")); got != "[OFFER-DEMO OFFER-VIP]" {
		t.Errorf("catalogue for VIP-1 %s", got)
	}
	offers, _ := s.Client.Catalogue(ctx, "VIP-1")
	if _, err := s.Client.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: offers[1].ID, VirtualID: "VIP-1", ExtTransactionID: "C-1", CoinsUsed: "500"}); err != nil {
		t.Fatalf("claiming an offer by its catalogue id: %v", err)
	}
	res, err := s.Client.PostAPIKey(ctx, "/api/getCatalogue", map[string]string{"channelName": "DEMOBANK"})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "coupons/catalogue.json", res.Body)
	after, _ := s.Client.Catalogue(ctx, "")
	if after[1].Stock != offers[1].Stock-1 {
		t.Errorf("stock %d after a claim, want %d", after[1].Stock, offers[1].Stock-1)
	}
}

// clause: NA-1
func TestUnavailableEndpoints_NA1_answer404WithAlternative(t *testing.T) {
	s := simtest.New(t)
	ctx := context.Background()
	for _, name := range []string{"RegisterEvent", "ExitEvent"} {
		t.Run(name, func(t *testing.T) {
			res, err := s.Client.CallSigned(ctx, s.BankURL+"/api/"+name, "", map[string]string{"virtualId": "VU-1", "channelName": "DEMOBANK"})
			var he *publisher.HTTPError
			if !errors.As(err, &he) || he.StatusCode != http.StatusNotFound {
				t.Fatalf("got %v, want HTTP 404", err)
			}
			if !strings.HasPrefix(res.Header.Get("X-Rewardsim-Reason"), "not-available: "+name) {
				t.Errorf("reason header %q", res.Header.Get("X-Rewardsim-Reason"))
			}
			if !bytes.Contains(res.Body, []byte("does not exist in the real service")) {
				t.Errorf("body %s", res.Body)
			}
			golden.Check(t, "coupons/not-available-"+strings.ToLower(name)+".json", res.Body)
		})
	}
	split := simtest.New(t, simtest.WithSplitHosts())
	// The harness client would hold the generic 404 to NA-1's shape: go around it.
	res, err := http.Post(split.HotdealsURL+"/api/RegisterEvent", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 404 || res.Header.Get("X-Rewardsim-Reason") != "" {
		t.Fatalf("RegisterEvent on the hotdeals host: HTTP %d, reason %q", res.StatusCode, res.Header.Get("X-Rewardsim-Reason"))
	}
}

// clause: SIM-1
func TestScenario_offersAreValidated(t *testing.T) {
	cases := []struct{ name, offers, faults, want string }{
		{"unknown channel", "  NOBANK:\n    - {id: X, title: X, coins: 1, stock: 1}\n", "", "/offers/NOBANK"},
		{"stock over list", "  DEMOBANK:\n    - {id: X, title: X, coins: 1, stock: 3, codes: {list: [A]}}\n", "", "/offers/DEMOBANK/0/stock"},
		{"no stock", "  DEMOBANK:\n    - {id: X, title: X, coins: 1}\n", "", "/offers/DEMOBANK/0/stock"},
		{"bad pattern", "  DEMOBANK:\n    - {id: X, title: X, coins: 1, stock: 1, targeting: {virtualIdPattern: \"(\"}}\n", "", "virtualIdPattern"},
		{"twice", "  DEMOBANK:\n    - {id: X, title: X, coins: 1, stock: 1}\n    - {id: X, title: Y, coins: 1, stock: 1}\n", "", "/offers/DEMOBANK/1/id"},
		{"unknown key", "  DEMOBANK:\n    - {id: X, title: X, coins: 1, stock: 1, price: 3}\n", "", "price"},
		{"delay without delay", "  DEMOBANK:\n    - {id: X, title: X, coins: 1, stock: 1}\n", "faults:\n  - {endpoint: fetchCouponCode, action: {kind: commit-then-delay}}\n", "/faults/0/action/delay"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := "version: 1\nname: bad\nchannels:\n  - {name: DEMOBANK, certificateFile: builtin:publisher-dev.crt}\noffers:\n" + tc.offers + tc.faults
			path := filepath.Join(t.TempDir(), "bad.yaml")
			if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
				t.Fatal(err)
			}
			err := sim.ValidateScenario(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad.yaml:") {
				t.Fatalf("got %v, want an error at %s", err, tc.want)
			}
		})
	}
}

// BenchmarkFetchCouponCode claims coupons through the real HTTP stack
// (loopback, echo, bbolt with durable group commits), in parallel.
func BenchmarkFetchCouponCode(b *testing.B) {
	s := simtest.New(b, simtest.WithScenarioYAML(couponYAML("", "")))
	ctx := context.Background()
	tr := &http.Transport{MaxIdleConnsPerHost: 256}
	b.Cleanup(tr.CloseIdleConnections)
	c := *s.Client
	c.HTTP = &http.Client{Transport: tr} // no schema validation in the timed loop
	var n sync.Mutex
	next := 0
	// Many publishers' requests in flight at once, as in production: each
	// waits for a group commit, so throughput needs concurrency, not cores.
	b.SetParallelism(32)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n.Lock()
			next++
			i := next
			n.Unlock()
			if _, err := c.FetchCouponCode(ctx, claim("OFF-MORE", fmt.Sprint("B-", i%1000), fmt.Sprint("BT-", i))); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "claims/s")
}

// clause: CPN-5
// A known extTransactionId from another user is a duplicate: the first
// user's coupon is never handed to them.
func TestFetchCouponCode_CPN5_anotherUsersExtTransactionIdIsADuplicate(t *testing.T) {
	s := simtest.New(t)
	first, err := s.Client.FetchCouponCode(bg, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-A", ChannelName: "DEMOBANK", ExtTransactionID: "SHARED", CoinsUsed: "100"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Client.FetchCouponCode(bg, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-B", ChannelName: "DEMOBANK", ExtTransactionID: "SHARED", CoinsUsed: "100"})
	var ce *publisher.CouponError
	if !errorsAs(err, &ce) || ce.Status != 409 || ce.ErrorCode != "DUPLICATE_TRANSACTION" || got.CouponCode == first.CouponCode {
		t.Fatalf("duplicate by another user: %+v %v, want 409 DUPLICATE_TRANSACTION", got, err)
	}
	again, err := s.Client.FetchCouponCode(bg, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-A", ChannelName: "DEMOBANK", ExtTransactionID: "SHARED", CoinsUsed: "100"})
	if err != nil || again.CouponCode != first.CouponCode {
		t.Fatalf("the first user's own duplicate: %+v %v, want the earlier coupon", again, err)
	}
}
