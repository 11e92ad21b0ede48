package hotdeals

import (
	"encoding/json"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

// appendCouponAnswer writes the bytes ok(c, render(sc, cp)) wrote, on
// generated coupons: strings that need escaping or none, empty ones,
// order ids on and off, several zones and years.
func TestAppendCouponAnswer(t *testing.T) {
	e := echo.New()
	e.JSONSerializer = httpx.JSONSerializer{}
	r := rand.New(rand.NewPCG(25, 3))
	pieces := []string{"", "OFFER-DEMO", "CPT-1", "a&b<c>", `"`, `\`, "\n\t\x01", "é", "\u2028", "\xff", "https://h.example/redirect/DEMOBANK/O?virtualId=a%20b&x=1"}
	str := func() string {
		var b strings.Builder
		for range r.IntN(3) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	zones := []*time.Location{time.UTC, time.FixedZone("IST", 5*3600+1800), time.FixedZone("", -(3*3600 + 30*60))}
	when := func() time.Time {
		return time.Date(1990+r.IntN(9000), time.Month(1+r.IntN(12)), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1e9), zones[r.IntN(len(zones))])
	}
	for round := range 2000 {
		sc := &scenario.Scenario{Location: zones[round%len(zones)]}
		sc.Switches.Coupons.OrderID = r.IntN(2) == 0
		cp := model.Coupon{OfferID: str(), Code: str(), ExtTransactionID: str(), URL: str(), OrderID: str(), ValidUntil: when(), PurchasedAt: when()}
		rec := httptest.NewRecorder()
		if err := ok(e.NewContext(httptest.NewRequest(http.MethodPost, "/", nil), rec), render(sc, cp)); err != nil {
			t.Fatal(err)
		}
		if got := appendCouponAnswer(nil, sc, cp); string(got) != rec.Body.String() {
			t.Fatalf("round %d:\n got %s\nwant %s", round, got, rec.Body)
		}
	}
}

// parseCoins' fast path for quoted digits reads what json.Unmarshal and
// strconv.Atoi read, on generated inputs of every shape near it.
func TestParseCoins_quotedDigitsAgrees(t *testing.T) {
	reference := func(raw []byte) (int, bool) {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= 0
	}
	r := rand.New(rand.NewPCG(25, 3))
	alphabet := []byte(`0123456789"\-+ e.u`)
	inputs := [][]byte{[]byte(`"100"`), []byte(`"0"`), []byte(`""`), []byte(`"`), []byte(`"999999999999999999"`), []byte(`"9223372036854775807"`), []byte(`"0100"`), []byte(`100`)}
	for range 20000 {
		b := []byte{'"'}
		for range r.IntN(22) {
			if r.IntN(4) == 0 {
				b = append(b, alphabet[r.IntN(len(alphabet))])
			} else {
				b = append(b, byte('0'+r.IntN(10)))
			}
		}
		if r.IntN(10) != 0 {
			b = append(b, '"')
		}
		inputs = append(inputs, b)
	}
	fast := 0
	for _, raw := range inputs {
		got, ok := quotedDigits(raw)
		if !ok {
			continue
		}
		fast++
		if want, wantOK := reference(raw); !wantOK || got != want {
			t.Fatalf("quotedDigits(%s) = %d; json and Atoi: %d, %v", raw, got, want, wantOK)
		}
		if n, err := parseCoins(raw, false); err != nil || n != got {
			t.Fatalf("parseCoins(%s) = %d, %v; want %d", raw, n, err, got)
		}
	}
	if fast < 1000 {
		t.Fatalf("only %d inputs took the fast path", fast)
	}
}

// isJSON agrees with the mime.ParseMediaType check it shortcuts.
func TestIsJSON(t *testing.T) {
	for _, ct := range []string{"application/json", "Application/JSON", "application/json; charset=utf-8", "application/json;", "application/jsonx",
		"text/plain", "", "application/json; charset", " application/json", "application/json ", "multipart/form-data; boundary=x"} {
		mt, _, err := mime.ParseMediaType(ct)
		if want := err == nil && mt == "application/json"; isJSON(ct) != want {
			t.Errorf("isJSON(%q) = %v, want %v", ct, !want, want)
		}
	}
}
