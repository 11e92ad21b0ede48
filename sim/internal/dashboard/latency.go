package dashboard

import (
	"slices"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/latency"
)

// LatencyRow is one configured latency profile beside what its endpoint
// answered in the entries the page read (issue 53 item 4).
type LatencyRow struct {
	From, Endpoint, Channel, Kind string
	// Median and P99 are the configured figures (before the cap).
	Median, P99 time.Duration
	// Answered counts the endpoint's exchanges (of the channel, when the
	// profile is one channel's) among the latest entries; AnsweredMedian
	// and AnsweredP99 are their measured latency.
	Answered                    int
	AnsweredMedian, AnsweredP99 time.Duration
}

// latencyRows sets every profile in force beside es's answered latency.
func (s Sources) latencyRows(es []journal.Entry) []LatencyRow {
	var rows []LatencyRow
	add := func(from string, ps []latency.Profile) {
		for _, p := range ps {
			var took []time.Duration
			for i := range es {
				e := &es[i]
				if e.Kind == journal.KindExchange && e.Endpoint != "" && (p.Endpoint == "*" || e.Endpoint == p.Endpoint) && (p.Channel == "" || e.Channel == p.Channel) {
					took = append(took, time.Duration(e.LatencyMs*float64(time.Millisecond)))
				}
			}
			r := LatencyRow{From: from, Endpoint: p.Endpoint, Channel: p.Channel, Kind: p.Kind(),
				Median: p.Quantile(0.5), P99: p.Quantile(0.99), Answered: len(took)}
			if len(took) > 0 {
				slices.Sort(took)
				r.AnsweredMedian = took[len(took)/2].Round(time.Millisecond / 10)
				r.AnsweredP99 = took[(len(took)-1)*99/100].Round(time.Millisecond / 10)
			}
			rows = append(rows, r)
		}
	}
	add("run time", s.Plane.Latency().List())
	for _, sc := range s.Scenarios.Scenarios() {
		add("scenario "+sc.Name, sc.Latency.List())
	}
	return rows
}
