package journal

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/state"
)

func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkMiddleware is what journaling a GetReward-sized exchange
// costs (issue 25): the request goroutine's share and the writer's, its
// commits included, read as the process's CPU per request with the
// journal on and off. The observers the writer feeds are in
// BenchmarkObserver (package sim).
func BenchmarkMiddleware(b *testing.B) {
	const reqBody = `{"channelName":"DEMOBANK","virtualId":"BV-1","triggerEventType":"UPI","extTransactionId":"BX1","amount":100.00,"dateandtime":"15012026100000"}`
	answer := []byte(`{"status":true,"message":"success","data":{"rewardId":"123456","title":"Scratch and win","expiry":"2026-12-24 10:00:00","rewardStatus":"UNSCRATCHED","campaignId":"CAMP-DEMO","deeplink":"https://bank.example/cards/123456","pad":"` + strings.Repeat("x", 120) + `"}}`)
	for _, mode := range []struct {
		name  string
		off   bool
		queue int
	}{
		{"journal=off", true, 0},
		{"journal=on", false, 1 << 16},
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
			cpu := processCPU()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "/api/GetReward", strings.NewReader(reqBody))
				req.Header = hdr.Clone()
				w.Body.Reset()
				e.ServeHTTP(w, req)
			}
			if err := j.Flush(b.Context()); err != nil {
				b.Fatal(err)
			}
			// The process's CPU: the request goroutine's and the writer's
			// (its commits included), whatever runs where.
			b.ReportMetric(float64((processCPU()-cpu).Nanoseconds())/1000/float64(b.N), "cpu-µs/op")
		})
	}
}
