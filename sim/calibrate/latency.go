package calibrate

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/latency"
)

// Latency samples (issue 53 item 3): every call's answer time is kept
// per endpoint; --latency-samples N more calls of each read-only endpoint
// give figures a profile can rest on.
const (
	// MaxLatencySamples bounds Options.LatencySamples (calls per endpoint).
	MaxLatencySamples = 1000
	// MinProfileSamples is the fewest samples a profile is written from:
	// fewer give no p99 worth the name.
	MinProfileSamples = 20
)

// LatencyFigure is one endpoint's measured answer time.
type LatencyFigure struct {
	Endpoint string `json:"endpoint"`
	Samples  int    `json:"samples"`
	Median   string `json:"median"`
	P99      string `json:"p99"`
	// Profiled: the figures are written into the overlay as a log-normal
	// profile (at least MinProfileSamples samples).
	Profiled bool `json:"profiled"`
}

// noteLatency keeps e's answer time under its endpoint.
func (r *run) noteLatency(e *Exchange, took time.Duration) {
	if r.latency == nil {
		r.latency = map[string][]time.Duration{}
	}
	r.latency[e.Op] = append(r.latency[e.Op], took)
}

// sampleLatency calls each read-only endpoint n times more (a budget of
// their own): getCatalogue, which changes nothing. A write endpoint is
// not sampled, with --allow-writes or not.
func (r *run) sampleLatency(n int) {
	if n <= 0 || r.stopped != "" {
		return
	}
	n = min(n, MaxLatencySamples)
	r.o.Budget = r.calls + n
	for range n {
		if _, err := r.apiKey("getCatalogue", map[string]string{"channelName": r.t.Channel}, "a latency sample"); err != nil && r.stopped != "" {
			return
		}
	}
}

// latencyFigures are the endpoints' measured figures, by endpoint.
func (r *run) latencyFigures() []LatencyFigure {
	var out []LatencyFigure
	for op, ds := range r.latency {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		q := func(p float64) time.Duration {
			return min(ds[int(math.Round(p*float64(len(ds)-1)))].Round(100*time.Microsecond), latency.MaxDelay)
		}
		med, p99 := max(q(0.5), 100*time.Microsecond), q(0.99)
		out = append(out, LatencyFigure{Endpoint: op, Samples: len(ds), Median: med.String(), P99: max(p99, med).String(),
			Profiled: len(ds) >= MinProfileSamples})
	}
	slices.SortFunc(out, func(a, b LatencyFigure) int {
		if a.Endpoint < b.Endpoint {
			return -1
		}
		if a.Endpoint > b.Endpoint {
			return 1
		}
		return 0
	})
	return out
}

// writeLatency appends the profiled figures to an overlay as its
// latency: list, each saying the samples it rests on.
func (rep *Report) writeLatency(b *bytes.Buffer) {
	first := true
	for _, f := range rep.Latency {
		if !f.Profiled {
			continue
		}
		if first {
			b.WriteString("# Latency measured from this machine (network included): log-normal by median and p99.\nlatency:\n")
			first = false
		}
		fmt.Fprintf(b, "  # %s: %d samples\n  - {endpoint: %s, lognormal: {median: %s, p99: %s}, samples: %d}\n", f.Endpoint, f.Samples, f.Endpoint, f.Median, f.P99, f.Samples)
	}
}
