package sim_test

// Microsite and SDK benchmarks (docs/performance.md, "Microsite and SDK"),
// through the real HTTP stack:
//
//	go test -run '^$' -bench 'SDKIssueNewCard|MicrositePage' -benchtime 3s ./sim/

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/rewardsim/rewardsim/sim/simtest"
)

// BenchmarkSDKIssueNewCard issues one new card per call through client
// issuance (a new user and extTransactionId each time), callers in parallel.
func BenchmarkSDKIssueNewCard(b *testing.B) {
	s := simtest.New(b)
	c := benchClient()
	var n atomic.Int64
	b.SetParallelism(benchParallelism())
	b.ReportAllocs()
	benchMeasure(b, "cards/s", func() {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				i := n.Add(1)
				body := fmt.Appendf(nil, `{"channelName":"DEMOBANK","triggerEventType":"UPI","merchantVPA":"shop@demobank","amount":100.00,"extTransactionId":"SDKB%d","dateandtime":"15012026100000","virtualId":"SB-%d","sessionId":" "}`, i, i)
				benchPost(b, c, s.BankURL+"/sdk/getScratchCardDetails", "", body, []byte(`"status":true`))
			}
		})
	})
}

// BenchmarkMicrositePage renders the hosted microsite of a user with ten
// cards (five revealed): session check, listing and templates.
func BenchmarkMicrositePage(b *testing.B) {
	s := simtest.New(b)
	const vid = "page-user"
	benchListingUser(b, s, vid)
	sess, err := s.Client.Session(context.Background(), vid)
	if err != nil {
		b.Fatal(err)
	}
	url := s.BankURL + "/microsite?virtualId=" + vid + "&sessionId=" + sess.SessionID
	c := benchClient()
	b.SetParallelism(4)
	b.ReportAllocs()
	benchMeasure(b, "pages/s", func() {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				benchSend(b, c, req, []byte(`class="tile revealed`))
			}
		})
	})
}
