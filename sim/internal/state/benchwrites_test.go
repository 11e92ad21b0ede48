package state

import (
	"sync"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/cputime"
)

// benchWrites runs op in parallel, 32 in flight on 2 cores as make
// load's 32 connections, into s after filling it with 50 x fill calls
// (in parallel: one call at a time would take a commit each), and
// reports per unit the process's CPU, the pages written to the file
// (bbolt's TxStats: the figure a layout change moves) and how many
// units a group commit carried.
func benchWrites(b *testing.B, s *Store, unit string, fill int, op func() error) {
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			for range fill {
				if err := op(); err != nil {
					b.Error(err)
				}
			}
		})
	}
	wg.Wait()
	before, commits, cpu := s.db.Stats(), s.group.commits.Load(), cputime.Process()
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := op(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.StopTimer()
	after := s.db.Stats()
	b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/float64(b.N), "cpu-µs/"+unit)
	b.ReportMetric(float64(after.TxStats.GetWrite()-before.TxStats.GetWrite())/float64(b.N), "pages/"+unit)
	b.ReportMetric(float64(b.N)/float64(s.group.commits.Load()-commits), unit+"s/commit")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), unit+"s/s")
}
