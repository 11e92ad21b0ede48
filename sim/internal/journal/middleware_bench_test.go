package journal

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/state"
)

// BenchmarkMiddleware is what journaling costs on the request goroutine
// alone (issue 25: nothing but a slice reference should be left there):
// a GetReward-sized exchange with the journal on and off. The writer's
// share runs on its own goroutine and is in BenchmarkObserverCost.
func BenchmarkMiddleware(b *testing.B) {
	const reqBody = `{"channelName":"DEMOBANK","virtualId":"BV-1","triggerEventType":"UPI","extTransactionId":"BX1","amount":100.00,"dateandtime":"15012026100000"}`
	answer := []byte(`{"status":true,"message":"success","data":{"rewardId":"123456","title":"Scratch and win","expiry":"2026-12-24 10:00:00","rewardStatus":"UNSCRATCHED","campaignId":"CAMP-DEMO","deeplink":"https://bank.example/cards/123456","pad":"` + strings.Repeat("x", 120) + `"}}`)
	for _, mode := range []struct {
		name  string
		off   bool
		queue int
	}{
		{"journal=off", true, 0},
		// A queue of one drops nearly every exchange before the writer
		// sees it: the request goroutine's share alone.
		{"journal=on/request-goroutine", false, 1},
		{"journal=on/with-writer", false, 1 << 16},
	} {
		b.Run(mode.name, func(b *testing.B) {
			st, err := state.Open(b.TempDir(), state.Options{NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			j, err := Open(st, Options{Disabled: mode.off, Queue: mode.queue})
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
			hdr := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer 9Jq3fC0m2v6kXo1R8sYb4LwT7eHdNaUg5pZiQyVxKcE"},
				"User-Agent": {"Java-http-client/17"}, "Accept": {"application/json"}, "X-Request-Id": {"abc-123"}, "Content-Length": {"150"}}
			w := httptest.NewRecorder()
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "/api/GetReward", strings.NewReader(reqBody))
				req.Header = hdr.Clone()
				w.Body.Reset()
				e.ServeHTTP(w, req)
			}
		})
	}
}
