package sim_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// BenchmarkObserverCost is what the journal and the three observers it
// feeds (the request log line, the metrics, the live stream) cost per
// request (issue 25): the same GetReward load with everything on, then
// with each switched off in turn, in one run. The cost of a part is
// all-on's cpu-µs/op minus the run without it; journal=off turns the
// observers off too (they hang off it), so all-on minus journal=off is
// the sum. The log goes to a file at info, as `rewardsim serve` logs by
// default; the live stream has no reader (no dashboard open).
func BenchmarkObserverCost(b *testing.B) {
	for _, mode := range []struct {
		name               string
		log, metrics, live bool // left out
		journalOff         bool
	}{
		{name: "all-on"},
		{name: "log=off", log: true},
		{name: "metrics=off", metrics: true},
		{name: "live=off", live: true},
		{name: "journal=off", journalOff: true},
	} {
		b.Run(mode.name, func(b *testing.B) {
			restore := sim.QuietObservers(mode.log, mode.metrics, mode.live)
			defer restore()
			logFile, err := os.Create(filepath.Join(b.TempDir(), "serve.log"))
			if err != nil {
				b.Fatal(err)
			}
			defer logFile.Close()
			s := simtest.New(b, simtest.WithJournal(sim.JournalOptions{Disabled: mode.journalOff}),
				simtest.WithLogger(slog.New(slog.NewTextHandler(logFile, nil))))
			benchNewCards(b, s, "O", "req/s")
		})
	}
}
