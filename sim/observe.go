package sim

import (
	"cmp"
	"context"
	"log/slog"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/rewardsim/rewardsim/sim/internal/api/control"
	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/latency"
	"github.com/rewardsim/rewardsim/sim/internal/metrics"
	"github.com/rewardsim/rewardsim/sim/internal/outcome"
	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

// observe hangs the request log, the metrics and the live dashboard off
// the journal: all three see exactly the entries the journal stored,
// with the channel, operation and fault it worked out. (So with the
// journal disabled there are no request lines and no request counters.)
func (s *Sim) observe() {
	s.live = control.NewLive(s.secrets)
	s.metrics = metrics.New(metrics.Sources{
		JournalEntries: s.journal.Stored,
		JournalDropped: s.journal.Dropped,
		StoreBytes:     s.store.Size,
		Cards: func() (int, int, error) {
			c, err := s.store.Counts()
			return c.CardsIssued, c.CardsRevealed, err
		},
		CouponsClaimed: func() (int, error) {
			c, err := s.store.Counts()
			return c.CouponsClaimed, err
		},
		LatencyProfiles: s.latencyFigures,
		CallsHeld:       s.callsHeld,
	})
	if !quietObservers.log {
		s.journal.Observe(s.logEntry)
	}
	if !quietObservers.metrics {
		s.journal.Observe(s.metrics.Observe)
	}
	if !quietObservers.live {
		s.journal.Observe(s.live.Publish)
	}
}

// callsHeld counts the calls its listeners hold for a latency draw.
func (s *Sim) callsHeld() int {
	n := 0
	if lots := s.lots.Load(); lots != nil {
		for _, l := range *lots {
			n += l.Parked()
		}
	}
	return n
}

// latencyFigures are the configured latency profiles, the run-time ones
// and each scenario's, for /metrics.
func (s *Sim) latencyFigures() []metrics.Profile {
	var out []metrics.Profile
	add := func(from string, ps []latency.Profile) {
		for _, p := range ps {
			out = append(out, metrics.Profile{From: from, Endpoint: p.Endpoint, Channel: p.Channel, Kind: p.Kind(),
				Median: p.Quantile(0.5).Seconds(), P99: p.Quantile(0.99).Seconds()})
		}
	}
	add("runtime", s.plane.Latency().List())
	for _, sc := range s.plane.Scenarios().Scenarios() {
		add("scenario/"+sc.Name, sc.Latency.List())
	}
	return out
}

// quietObservers leaves observers out of simulators built from now on:
// only BenchmarkObserverCost sets it (export_test.go), to measure what
// each observer costs per request by switching it off in turn.
var quietObservers struct{ log, metrics, live bool }

// EndStreams ends every open live-dashboard stream (GET /__sim/live), so
// a server stops without waiting for open dashboards. Call it before
// closing the servers of Handler(Control); Serve does so itself.
func (s *Sim) EndStreams() { s.live.Close() }

// logEntry writes the one info line of a request or webhook attempt:
// its latency in milliseconds, its contract outcome and, when the answer
// said no, why.
func (s *Sim) logEntry(e journal.Entry) {
	// Nothing is built for a line the level drops (make load runs at error).
	if !s.log.Enabled(context.Background(), slog.LevelInfo) {
		return
	}
	if e.Kind == journal.KindWebhook {
		s.log.Info("webhook", "url", e.Path, "channel", e.Channel, "status", e.Status,
			"outcome", e.Outcome, "latency_ms", e.LatencyMs, "error", e.Error)
		return
	}
	host := e.Host
	if host == "" {
		host = e.Listener
	}
	// Typed attributes, not alternating arguments: each value boxed in an
	// interface was an allocation, ten a line (issue 25).
	var buf [15]slog.Attr
	attrs := append(buf[:0], slog.String("method", e.Method), slog.String("host", host),
		slog.String("path", s.secrets.MaskKnown(e.Path, secrets.Fingerprint)), slog.String("endpoint", e.Endpoint),
		slog.String("channel", e.Channel), slog.Int("status", e.Status), slog.String("outcome", e.Outcome),
		slog.Float64("latency_ms", e.LatencyMs), slog.String("fault", e.Fault), slog.Uint64("seq", e.Seq))
	if e.ErrorCode != "" {
		attrs = append(attrs, slog.String("errorCode", e.ErrorCode))
	}
	if e.Outcome != outcome.Success && e.Reason != "" {
		attrs = append(attrs, slog.String("reason", e.Reason))
	}
	if e.VirtualID != "" {
		attrs = append(attrs, slog.String("virtualId", e.VirtualID))
	}
	if e.ClientGone {
		attrs = append(attrs, slog.Bool("clientGone", true))
	}
	s.log.LogAttrs(context.Background(), slog.LevelInfo, "request", attrs...)
}

// logStart is the line an operator looks for: where it listens, which
// build, which data folder and scenario, and what the data folder
// restored: the channels that run another scenario and the fault rules.
func (s *Sim) logStart(bound map[Host]string) {
	in := s.plane.InForce() // what a restart restored governs as much as --scenario
	attrs := []any{"version", s.version(), "crypto", Crypto(), "data", s.opts.DataDir, "scenario", in.Scenario}
	if c := in.ChannelScenarios(); c != "" {
		attrs = append(attrs, "channelScenarios", c)
	}
	if f := in.FaultIDs(); f != "" {
		attrs = append(attrs, "faults", f)
	}
	for _, h := range []Host{All, Rewards, Bank, Hotdeals, Control} {
		if a, ok := bound[h]; ok {
			attrs = append(attrs, slog.String("listen."+string(h), a))
		}
	}
	s.log.Info("rewardsim started", attrs...)
}

// cors is the CORS middleware of the public hosts, or nil when no origin
// is allowed (the default: publishers' servers need none).
func (s *Sim) cors() echo.MiddlewareFunc {
	if len(s.opts.CORSOrigins) == 0 {
		return nil
	}
	return middleware.CORSWithConfig(middleware.CORSConfig{
		AllowOrigins:  s.opts.CORSOrigins,
		AllowMethods:  []string{"GET", "POST", "OPTIONS"},
		AllowHeaders:  []string{"Content-Type", "Authorization", "X-CHANNELID"},
		ExposeHeaders: []string{"X-Rewardsim-Reason", "X-Rewardsim-Seq"},
		MaxAge:        600,
	})
}

// version is the build's version as health and the start line report it.
func (s *Sim) version() string { return cmp.Or(s.opts.Version, "(devel)") }
