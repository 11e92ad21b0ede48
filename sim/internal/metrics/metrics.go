// Package metrics serves the simulator's Prometheus metrics (GET
// /__sim/metrics). Request, fault and webhook counters are fed by the
// journal's observer, so they count exactly what the journal stored;
// sizes and card and coupon counts are read from their owners at scrape
// time. Each simulator has its own registry: two in one process (tests)
// never share a counter.
package metrics

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
)

// Other is the endpoint label of a request that is no contract operation
// (tracking, simulator assets, unknown paths).
const Other = "other"

// Webhook attempt outcomes.
const (
	WebhookOK         = "ok"         // the receiver answered {"status":"OK"}
	WebhookRefused    = "refused"    // it answered, but not with OK
	WebhookUnanswered = "unanswered" // no answer: timeout, refused connection, bad URL
)

// Sources are read at scrape time; a nil source is left out.
type Sources struct {
	JournalEntries func() (int, error)
	JournalDropped func() uint64
	// StoreBytes is the size of the state file.
	StoreBytes func() (int64, error)
	// Cards counts every channel's cards issued and revealed so far.
	Cards func() (issued, revealed int, err error)
	// CouponsClaimed counts every channel's coupons delivered so far.
	CouponsClaimed func() (int, error)
	// LatencyProfiles are the configured latency profiles, shown beside
	// rewardsim_request_duration_seconds (the answered latency).
	LatencyProfiles func() []Profile
	// CallsHeld counts the calls held for their latency draw now.
	CallsHeld func() int
}

// Profile is one configured latency profile's figures: From is
// "runtime" or "scenario/NAME"; Channel "" is every channel.
type Profile struct {
	From, Endpoint, Channel, Kind string
	Median, P99                   float64 // seconds, before the cap
}

// profiles exports the configured profiles at scrape time.
type profiles struct {
	read func() []Profile
	desc *prometheus.Desc
}

func (p profiles) Describe(ch chan<- *prometheus.Desc) { ch <- p.desc }

func (p profiles) Collect(ch chan<- prometheus.Metric) {
	for _, pr := range p.read() {
		for _, q := range []struct {
			name string
			v    float64
		}{{"0.5", pr.Median}, {"0.99", pr.P99}} {
			ch <- prometheus.MustNewConstMetric(p.desc, prometheus.GaugeValue, q.v, pr.From, pr.Endpoint, pr.Channel, pr.Kind, q.name)
		}
	}
}

// Metrics is one simulator's registry and its counters.
type Metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	faults   *prometheus.CounterVec
	webhooks *prometheus.CounterVec
	// The channels' capacity limits (docs/limits.md), by channel and endpoint.
	limitRefused, limitWaited, limitWait *prometheus.CounterVec
}

// counter is a counter vector named name, by labels.
func counter(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

// New builds the registry: the counters, the gauges over src, and the
// Go runtime and process collectors.
func New(src Sources) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: counter("rewardsim_requests_total",
			"Requests to the public hosts, by host, contract endpoint (\"other\" for tracking, assets and unknown paths), HTTP status, contract outcome (success, refusal, fault, transport) and the coupon errorCode of the answer (\"\" when none).",
			"host", "endpoint", "status", "outcome", "error_code"),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "rewardsim_request_duration_seconds",
			Help:    "Wall-clock time from request to answer on the public hosts, by host and endpoint.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"host", "endpoint"}),
		faults: counter("rewardsim_faults_fired_total",
			"Injected faults that fired, by endpoint and fault.",
			"endpoint", "fault"),
		webhooks: counter("rewardsim_webhook_attempts_total",
			"Webhook delivery attempts, by outcome (ok, refused, unanswered).",
			"outcome"),
		limitRefused: counter("rewardsim_limit_refused_total",
			"Calls refused by their channel's capacity limit, by channel, endpoint and reason (in-flight, rate, queue).",
			"channel", "endpoint", "reason"),
		limitWaited: counter("rewardsim_limit_waited_total",
			"Calls that waited for room under their channel's capacity limit and were then admitted, by channel and endpoint.",
			"channel", "endpoint"),
		limitWait: counter("rewardsim_limit_wait_seconds_total",
			"Time calls spent waiting under their channel's capacity limit, admitted or refused, by channel and endpoint.",
			"channel", "endpoint"),
	}
	m.reg.MustRegister(m.requests, m.latency, m.faults, m.webhooks, m.limitRefused, m.limitWaited, m.limitWait,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.registerSources(src)
	return m
}

// registerSources adds the gauges read from src at scrape time; a source
// left nil is not shown.
func (m *Metrics) registerSources(src Sources) {
	gauge := func(name, help string, read func() (float64, error)) {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 {
			v, err := read()
			if err != nil {
				return -1 // a failed read shows, instead of a plausible zero
			}
			return v
		}))
	}
	if src.CallsHeld != nil {
		gauge("rewardsim_calls_held", "Calls held for their latency profile's draw now, each on a timer with its connection set aside (docs/latency.md).", func() (float64, error) {
			return float64(src.CallsHeld()), nil
		})
	}
	if src.JournalEntries != nil {
		gauge("rewardsim_journal_entries", "Entries the journal holds.", func() (float64, error) {
			n, err := src.JournalEntries()
			return float64(n), err
		})
	}
	if src.JournalDropped != nil {
		m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "rewardsim_journal_dropped_total", Help: "Journal entries dropped because its queue was full.",
		}, func() float64 { return float64(src.JournalDropped()) }))
	}
	if src.StoreBytes != nil {
		gauge("rewardsim_store_bytes", "Size of the state file in bytes.", func() (float64, error) {
			n, err := src.StoreBytes()
			return float64(n), err
		})
	}
	if src.Cards != nil {
		gauge("rewardsim_cards_issued", "Scratch cards issued and held in the store, every channel.", func() (float64, error) {
			n, _, err := src.Cards()
			return float64(n), err
		})
		gauge("rewardsim_cards_revealed", "Scratch cards revealed, every channel.", func() (float64, error) {
			_, n, err := src.Cards()
			return float64(n), err
		})
	}
	if src.LatencyProfiles != nil {
		m.reg.MustRegister(profiles{read: src.LatencyProfiles, desc: prometheus.NewDesc("rewardsim_latency_profile_seconds",
			"Configured latency profiles (simulator behaviour, not contract): the quantile of the profile's delay before its cap, by where it is set (runtime, or scenario/NAME), endpoint (* every one), channel (\"\" every one) and kind. Compare rewardsim_request_duration_seconds, the answered latency.",
			[]string{"from", "endpoint", "channel", "kind", "quantile"}, nil)})
	}
	if src.CouponsClaimed != nil {
		gauge("rewardsim_coupons_claimed", "Coupons delivered and held in the store, every channel.", func() (float64, error) {
			n, err := src.CouponsClaimed()
			return float64(n), err
		})
	}
}

// Observe counts one stored journal entry.
func (m *Metrics) Observe(e journal.Entry) {
	switch e.Kind {
	case journal.KindWebhook:
		m.webhooks.WithLabelValues(WebhookOutcome(e)).Inc()
	case journal.KindExchange:
		ep := e.Endpoint
		if ep == "" {
			ep = Other
		}
		host := e.Host
		if host == "" {
			host = e.Listener
		}
		m.requests.WithLabelValues(host, ep, strconv.Itoa(e.Status), e.Outcome, e.ErrorCode).Inc()
		m.latency.WithLabelValues(host, ep).Observe(e.LatencyMs / 1000)
		if e.Fault != "" {
			m.faults.WithLabelValues(ep, e.Fault).Inc()
		}
		if l := e.Limit; l != nil {
			if l.Refused {
				m.limitRefused.WithLabelValues(e.Channel, ep, l.Reason).Inc()
			} else {
				m.limitWaited.WithLabelValues(e.Channel, ep).Inc()
			}
			m.limitWait.WithLabelValues(e.Channel, ep).Add(l.WaitedMs / 1000)
		}
	}
}

// WebhookOutcome classifies one journaled webhook attempt.
func WebhookOutcome(e journal.Entry) string {
	switch {
	case e.Error == "" && e.Status >= 200 && e.Status < 300:
		return WebhookOK
	case e.Status == 0:
		return WebhookUnanswered
	default:
		return WebhookRefused
	}
}

// Handler serves the registry in the Prometheus text format (or
// OpenMetrics, when the scraper asks for it).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
