package sim

import (
	"bufio"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/outcome"
)

// BenchmarkObserver is each observer's own cost per stored entry, on the
// journal writer's goroutine (issue 25): the request log line at info
// to a file, as serve logs by default, the metrics, and the live stream
// with no reader. In-process and serial, so steadier than the same
// figures read off BenchmarkObserverCost's whole-server runs.
func BenchmarkObserver(b *testing.B) {
	s, err := New(Options{DataDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	f, err := os.Create(filepath.Join(b.TempDir(), "serve.log"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	direct := slog.New(slog.NewTextHandler(f, nil))
	// As serve writes it: batched (cmd/rewardsim's flushingWriter).
	batched := slog.New(slog.NewTextHandler(bufio.NewWriterSize(f, 64<<10), nil))
	logTo := func(l *slog.Logger) journal.Observer {
		return func(e journal.Entry) { s.log = l; s.logEntry(e) }
	}
	e := journal.Entry{Seq: 42, Kind: journal.KindExchange, At: time.Now(), LatencyMs: 1.25, Listener: "all", Host: "rewards",
		Endpoint: "GetReward", Method: "POST", Path: "/api/GetReward", Channel: "DEMOBANK", ChannelID: "DEMOBANK",
		VirtualID: "BV-1", Status: 200, Outcome: outcome.Success}
	for _, o := range []struct {
		name string
		fn   journal.Observer
	}{{"log, a write per line", logTo(direct)}, {"log, batched writes", logTo(batched)}, {"metrics", s.metrics.Observe}, {"live", s.live.Publish}} {
		b.Run(o.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				o.fn(e)
			}
		})
	}
}
