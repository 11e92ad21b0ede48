package sim_test

// The listing's server cost (issue 25), in-process: the rewards host's
// handler called directly (no sockets, no client), so ns/op, B/op and
// allocs/op are the server's own. Run it with
//
//	go test -run '^$' -bench 'ListingHandler' -benchmem ./sim/

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// BenchmarkListingHandler lists a user's ten cards (five revealed), the
// load generator's listing-10-cards, with the journal on and off.
func BenchmarkListingHandler(b *testing.B) {
	for _, journal := range []bool{true, false} {
		b.Run(fmt.Sprintf("journal=%v", journal), func(b *testing.B) {
			s := simtest.New(b, simtest.WithJournal(sim.JournalOptions{Disabled: !journal}))
			tok := benchListingUser(b, s, "LIST-USER")
			h := s.Sim.Handler(sim.All)
			req := httptest.NewRequest(http.MethodGet, "/api/GetAllScratchCardsByUserId?page=1&limit=10", nil)
			req.Header.Set("Authorization", "Bearer "+tok)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK || !bytes.Contains(w.Body.Bytes(), []byte(`"total":10`)) {
					b.Fatalf("HTTP %d %s", w.Code, w.Body)
				}
			}
		})
	}
}

// benchListingUser gives vid ten cards, every other one revealed, and
// returns vid's user token.
func benchListingUser(b *testing.B, s *simtest.Server, vid string) string {
	ctx := context.Background()
	ref, err := s.Client.ReferenceToken(ctx)
	if err != nil {
		b.Fatal(err)
	}
	tok, err := s.Client.UserToken(ctx, vid)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 10 {
		_, ans, err := s.Client.GetReward(ctx, ref.ReferenceKey, map[string]any{"channelName": "DEMOBANK", "virtualId": vid, "triggerEventType": "UPI", "extTransactionId": fmt.Sprintf("LT%d", i), "amount": 100, "dateandtime": "15012026100000"})
		if err != nil || !ans.Status {
			b.Fatal(err, ans)
		}
		if i%2 == 0 {
			if _, _, err := s.Client.FetchRewardInfo(ctx, tok.Token, vid, ans.Rewards[0].RewardID); err != nil {
				b.Fatal(err)
			}
		}
	}
	return tok.Token
}
