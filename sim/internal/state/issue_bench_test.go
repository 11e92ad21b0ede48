package state

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/cputime"
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// BenchmarkIssueCard is the store alone for make load's
// GetReward-new-card: per call, what a GetReward of a new user reads and
// writes in its transaction (the idempotency record, the cap events, a
// new card), many calls in flight into a store already holding cards.
// pages/card is what each card writes to the file (bbolt's TxStats),
// the figure a layout change moves.
func BenchmarkIssueCard(b *testing.B) {
	s, err := Open(b.TempDir(), Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var n atomic.Int64
	now := time.Unix(1700000000, 0)
	issue := func() error {
		i := n.Add(1)
		user, txn := fmt.Sprint("GR-bench-", i), fmt.Sprint("GRT-bench-", i)
		return s.UpdateCards("DEMOBANK", func(tx *CardTx) error {
			if _, ok, err := tx.Issued("UPI", txn); err != nil || ok {
				return err
			}
			ev, err := tx.CapEvents("CAMP-DEMO", user)
			if err != nil {
				return err
			}
			if err := tx.SetCapEvents("CAMP-DEMO", user, append(ev, now.UnixNano())); err != nil {
				return err
			}
			amount := 100.0
			c := model.Card{Channel: "DEMOBANK", VirtualID: user, CampaignID: "CAMP-DEMO", Pool: "DEMO-POOL", Source: "UPI",
				ExtTransactionID: txn, Trigger: "UPI", Amount: &amount, DateAndTime: "15012026100000", CreatedAt: now, ExpiresAt: now.Add(720 * time.Hour)}
			if err := tx.InsertCard(&c); err != nil {
				return err
			}
			return tx.SetIssued("UPI", txn, []uint64{c.RewardID})
		})
	}
	var fill sync.WaitGroup
	for range 50 {
		fill.Go(func() {
			for range 400 {
				if err := issue(); err != nil {
					b.Error(err)
				}
			}
		})
	}
	fill.Wait()
	before, commits, cpu := s.db.Stats(), s.group.commits.Load(), cputime.Process()
	b.SetParallelism(16) // 32 in flight on 2 cores, as make load's 32 connections
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := issue(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.StopTimer()
	after := s.db.Stats()
	b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/float64(b.N), "cpu-µs/card")
	b.ReportMetric(float64(after.TxStats.GetPageCount()-before.TxStats.GetPageCount())/float64(b.N), "pages/card")
	b.ReportMetric(float64(b.N)/float64(s.group.commits.Load()-commits), "cards/commit")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cards/s")
}
