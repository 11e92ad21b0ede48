package report

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
)

// Issue 23, readers bounded by the page: the report's rules are a fold
// over entries that keeps per-rule state bounded by counts, not bodies.
// 1,000 GetRewards with 256 KiB in each body (500 MiB a pass) leave the heap under
// 32 MiB at the end of the second pass; the findings are still found.
func TestBuildFrom_memoryBoundedByRuleStateNotBodies(t *testing.T) {
	const n, pad = 1000, 256 << 10
	at := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	var peak uint64
	passes := 0
	read := func(fn func(journal.Entry) bool) error {
		passes++
		for i := 1; i <= n; i++ {
			big := strings.Repeat(string(rune('a'+i%26)), pad) // a fresh body each time, as a journal page decodes it
			tx := fmt.Sprintf("TX%d", i)
			if i == n {
				tx = "TX1" // a duplicate of the first, with another pad: GR-4
			}
			req, _ := json.Marshal(map[string]any{"extTransactionId": tx, "amount": 10, "pad": big})
			e := journal.Entry{Seq: uint64(i), Kind: journal.KindExchange, At: at.Add(time.Duration(i) * time.Second), Method: "POST",
				Path: "/api/GetReward", Endpoint: "GetReward", Channel: "C", Status: 200,
				Request:  journal.Message{Body: req},
				Response: journal.Message{Body: json.RawMessage(`{"status":true}`), Text: big}}
			if !fn(e) {
				return nil
			}
			if i%100 == 0 {
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
		}
		return nil
	}
	r, err := BuildFrom(read, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if passes != 2 {
		t.Errorf("%d passes over the source, want 2", passes)
	}
	if peak > 32<<20 {
		t.Errorf("heap reached %d MiB while folding %d MiB of entries: the report keeps what it read", peak>>20, n*2*pad>>20)
	}
	found := false
	for _, f := range r.Findings {
		found = found || f.ID == "get-reward-conflicting-duplicate" && f.Count == 1
	}
	if !found || r.Exchanges != n {
		t.Errorf("findings %+v, exchanges %d: the fold lost a rule", r.Findings, r.Exchanges)
	}
}
