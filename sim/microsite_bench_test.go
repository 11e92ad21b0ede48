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
	ctx := context.Background()
	const vid = "page-user"
	ref, err := s.Client.ReferenceToken(ctx)
	if err != nil {
		b.Fatal(err)
	}
	tok, err := s.Client.UserToken(ctx, vid)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 10 {
		_, ans, err := s.Client.GetReward(ctx, ref.ReferenceKey, map[string]any{"channelName": "DEMOBANK", "virtualId": vid, "triggerEventType": "UPI", "extTransactionId": fmt.Sprintf("PG%d", i), "amount": 10, "dateandtime": "15012026100000"})
		if err != nil || !ans.Status {
			b.Fatal(err, ans)
		}
		if i%2 == 0 {
			if _, _, err := s.Client.FetchRewardInfo(ctx, tok.Token, vid, ans.Rewards[0].RewardID); err != nil {
				b.Fatal(err)
			}
		}
	}
	sess, err := s.Client.Session(ctx, vid)
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
