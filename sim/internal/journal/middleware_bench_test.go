package journal

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/cputime"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
)

// BenchmarkMiddleware is what journaling an exchange costs (issue 25):
// the request goroutine's share and the writer's, its commits included,
// read as the process's CPU per request with the journal on and off. The
// exchanges: a GetReward (a 150-byte request, a 300-byte answer), a
// signed call (signed: its answer hands out a new credential and
// signature, which the journal learns to mask) and the listing of 10
// cards (a GET with a bearer token, a 3 KB answer, the same each time, as
// a client polling it sees), written by c.JSONBlob or, as the listing's
// handler writes it, by httpx.WriteJSON (listing-written: the journal
// keeps that answer by reference); journal=full is the journal
// at its bound. The observers the writer feeds
// are in BenchmarkObserver (package sim).
func BenchmarkMiddleware(b *testing.B) {
	const reqBody = `{"channelName":"DEMOBANK","virtualId":"BV-1","triggerEventType":"UPI","extTransactionId":"BX1","amount":100.00,"dateandtime":"15012026100000"}`
	answer := []byte(`{"status":true,"message":"success","data":{"rewardId":"123456","title":"Scratch and win","expiry":"2026-12-24 10:00:00","rewardStatus":"UNSCRATCHED","campaignId":"CAMP-DEMO","deeplink":"https://bank.example/cards/123456","pad":"` + strings.Repeat("x", 120) + `"}}`)
	var cards []string
	for i := range 10 {
		cards = append(cards, fmt.Sprintf(`{"rewardId":%d,"isAlreadyRewarded":true,"createdDateTime":"2026-01-15 10:00:00.000","trackLink":["http://rewards.test/track/impression?channel=DEMOBANK&from=card&rewardId=%d"],"offerTitle":"Heavy","description":"","terms":"T","couponCode":"H-%04d","endDate":"","couponType":"CODE","couponImage":"https://img/h.png","redeemSteps":"R","bannerDisplayUrl":"","iconImage":"","details":"","siteId":"","siteName":"","coverImage":"","promoLink":"https://go/h","bgColor":"","isSeen":true}`, i+1, i+1, i+1))
	}
	listing := []byte(`{"status":true,"message":"success","page":1,"limit":10,"total":10,"rewards":[` + strings.Join(cards, ",") + `]}`)
	// A signed call as make load's getSecuredReferenceToken sends it (the
	// same sealed body each time) and its answer: a new reference key and
	// signature each call, which the journal learns to mask.
	sig := func(seed int) string {
		raw := make([]byte, 256)
		for i := range raw {
			raw[i] = byte(seed*31 + i*7)
		}
		return base64.StdEncoding.EncodeToString(raw)
	}
	signedReq := `{"CHANNELID":"DEMOBANK","BDATA":"` + base64.StdEncoding.EncodeToString([]byte(`{"bName":"DEMOBANK"}`)) + `","SIGN":"` + sig(0) + `"}`
	var calls atomic.Int64
	signedAnswer := func() []byte {
		n := calls.Add(1)
		key := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("reference-key-%022d", n)))
		bdata := base64.StdEncoding.EncodeToString([]byte(`{"referenceKey":"` + key + `","expireDate":"2026-11-25 10:00:00"}`))
		return []byte(`{"CHANNELID":"REWARDSIM","SIGN":"` + sig(int(n)) + `","BDATA":"` + bdata + `"}`)
	}
	hdr := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer 9Jq3fC0m2v6kXo1R8sYb4LwT7eHdNaUg5pZiQyVxKcE"},
		"User-Agent": {"Java-http-client/17"}, "Accept": {"application/json"}, "X-Request-Id": {"abc-123"}, "Content-Length": {"150"}}
	getHdr := http.Header{"Authorization": {"Bearer 9Jq3fC0m2v6kXo1R8sYb4LwT7eHdNaUg5pZiQyVxKcE"},
		"User-Agent": {"Java-http-client/17"}, "Accept": {"application/json"}, "X-Request-Id": {"abc-123"}}
	for _, size := range []struct {
		name   string
		newReq func() *http.Request
	}{
		{"GetReward", func() *http.Request {
			req := httptest.NewRequest(http.MethodPost, "/api/GetReward", strings.NewReader(reqBody))
			req.Header = hdr.Clone()
			return req
		}},
		{"listing", func() *http.Request {
			req := httptest.NewRequest(http.MethodGet, "/api/GetAllScratchCardsByUserId?page=1&limit=10", nil)
			req.Header = getHdr.Clone()
			return req
		}},
		{"signed", func() *http.Request {
			req := httptest.NewRequest(http.MethodPost, "/api/getSecuredReferenceToken", strings.NewReader(signedReq))
			req.Header = hdr.Clone()
			return req
		}},
		{"listing-written", func() *http.Request {
			req := httptest.NewRequest(http.MethodGet, "/api/GetAllScratchCardsByUserId?page=1&limit=10&written", nil)
			req.Header = getHdr.Clone()
			return req
		}},
	} {
		for _, mode := range []struct {
			name  string
			off   bool
			queue int
			max   int
		}{
			{"journal=off", true, 0, 0},
			{"journal=on", false, 1 << 16, 0},
			// At its bound, as a long run's journal is: each commit drops
			// as many records as it adds.
			{"journal=full", false, 1 << 16, 1000},
		} {
			b.Run(size.name+"/"+mode.name, func(b *testing.B) {
				j, err := Open(b.TempDir(), Options{Disabled: mode.off, Queue: mode.queue, MaxEntries: mode.max})
				if err != nil {
					b.Fatal(err)
				}
				defer j.Close()
				e := echo.New()
				e.Use(j.Middleware("all"))
				e.POST("/api/GetReward", func(c echo.Context) error {
					buf := make([]byte, 512)
					n, _ := c.Request().Body.Read(buf)
					_ = buf[:n]
					return c.JSONBlob(http.StatusOK, answer)
				})
				e.POST("/api/getSecuredReferenceToken", func(c echo.Context) error {
					buf := make([]byte, 1024)
					n, _ := c.Request().Body.Read(buf)
					_ = buf[:n]
					return c.JSONBlob(http.StatusOK, signedAnswer())
				})
				e.GET("/api/GetAllScratchCardsByUserId", func(c echo.Context) error {
					if _, ok := c.QueryParams()["written"]; ok {
						return httpx.WriteJSON(c, func(b []byte) []byte { return append(b, listing...) })
					}
					return c.JSONBlob(http.StatusOK, listing)
				})
				w := httptest.NewRecorder()
				b.ReportAllocs()
				cpu := cputime.Process()
				for b.Loop() {
					req := size.newReq()
					w.Body.Reset()
					e.ServeHTTP(w, req)
				}
				if err := j.Flush(b.Context()); err != nil {
					b.Fatal(err)
				}
				// The process's CPU: the request goroutine's and the writer's
				// (its commits included), whatever runs where.
				b.ReportMetric(float64((cputime.Process()-cpu).Nanoseconds())/1000/float64(b.N), "cpu-µs/op")
			})
		}
	}
}
