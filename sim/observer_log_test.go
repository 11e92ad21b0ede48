package sim

import (
	"bytes"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/outcome"
	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

// logEntryAsArgs is the request line as logEntry wrote it before it
// passed typed attributes (issue 25): the reference it must render as.
func logEntryAsArgs(log *slog.Logger, mem *secrets.Memory, e journal.Entry) {
	host := e.Host
	if host == "" {
		host = e.Listener
	}
	attrs := []any{"method", e.Method, "host", host, "path", mem.MaskKnown(e.Path, secrets.Fingerprint), "endpoint", e.Endpoint,
		"channel", e.Channel, "status", e.Status, "outcome", e.Outcome, "latency_ms", e.LatencyMs, "fault", e.Fault, "seq", e.Seq}
	if e.ErrorCode != "" {
		attrs = append(attrs, "errorCode", e.ErrorCode)
	}
	if e.Outcome != outcome.Success && e.Reason != "" {
		attrs = append(attrs, "reason", e.Reason)
	}
	if e.VirtualID != "" {
		attrs = append(attrs, "virtualId", e.VirtualID)
	}
	if e.ClientGone {
		attrs = append(attrs, "clientGone", true)
	}
	log.Info("request", attrs...)
}

// The request line renders as it did, in text and in JSON, whatever the
// entry holds: quotes, spaces, non-ASCII, empty fields, each optional
// attribute present or not.
func TestLogEntry_asBefore(t *testing.T) {
	texts := []string{"", "GetReward", "DEMO BANK", `a"b`, "x=y", "ünï", "/api/GetReward", "tab\there", "\u2028", "<&>"}
	outcomes := append([]string{""}, outcome.All...)
	rng := rand.New(rand.NewPCG(5, 6))
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	noTime := &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
	for _, form := range []struct {
		name string
		new  func(*bytes.Buffer) slog.Handler
	}{
		{"text", func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, noTime) }},
		{"json", func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, noTime) }},
	} {
		for range 500 {
			e := journal.Entry{Seq: rng.Uint64N(1 << 40), Kind: journal.KindExchange, At: time.Now(), LatencyMs: float64(rng.IntN(100000)) / 1000,
				Listener: pick(texts), Host: pick(texts), Endpoint: pick(texts), Method: pick(texts), Path: pick(texts), Channel: pick(texts),
				VirtualID: pick(texts), Status: rng.IntN(600), Outcome: pick(outcomes), Reason: pick(texts), Fault: pick(texts),
				ErrorCode: pick(texts), ClientGone: rng.IntN(2) == 0}
			var got, want bytes.Buffer
			s := &Sim{log: slog.New(form.new(&got)), secrets: secrets.New()}
			s.logEntry(e)
			logEntryAsArgs(slog.New(form.new(&want)), s.secrets, e)
			if got.String() != want.String() || got.Len() == 0 {
				t.Fatalf("%s: entry %+v\n got %s\nwant %s", form.name, e, got.String(), want.String())
			}
		}
	}
}
