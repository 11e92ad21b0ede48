package sim

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/webhook"
)

// The webhook wiring of the composition root: the scheduler built from
// the scenarios in force, its attempts journaled.

// WebhookOptions configure the webhook pushes (WH-*): how they are sent,
// how long a receiver has to answer, and what a fired COUPON_INVALIDATED
// push changes. A control call that makes pushes due never waits for
// their attempts unless it asks (?wait=, docs/webhooks.md).
type WebhookOptions struct {
	// Deadline is how long a webhook receiver has to answer; 0: 5s.
	Deadline time.Duration
	// Tick is how often (real time) due pushes are looked for; 0: 250ms.
	Tick time.Duration
	// Client sends pushes; nil: a plain http.Client.
	Client *http.Client
	// Invalidator marks an offer's delivered coupons invalidated when a
	// COUPON_INVALIDATED push fires (WH-4); nil: the simulator's own
	// coupon store.
	Invalidator Invalidator
}

// MaxWebhookDeadline bounds WebhookOptions.Deadline and every
// push's deadline (it holds one delivery worker that long).
const MaxWebhookDeadline = webhook.MaxDeadline

// Invalidator marks an offer's delivered coupons invalidated from at.
type Invalidator interface {
	InvalidateOffer(channel, offerID string, at time.Time, reason string) error
}

// newWebhooks builds the webhook scheduler (WH-*): channels and their
// retry switches come from the scenarios in force; every attempt is
// journaled.
func (s *Sim) newWebhooks() *webhook.Scheduler {
	o := s.opts.Webhooks
	if o.Invalidator == nil {
		o.Invalidator = couponInvalidator{s}
	}
	reg := s.plane.Scenarios()
	return webhook.New(webhook.Options{
		Store: s.store, Clock: s.clock, Invalidator: o.Invalidator, Client: o.Client,
		Rand: s.opts.Rand, Deadline: o.Deadline, Log: s.log, OnAttempt: s.journalWebhook,
		Channel: func(name string) (webhook.Channel, bool) {
			c, _, ok := reg.ByChannelName(name)
			sc := reg.ActiveFor(name)
			w := sc.Switches.Webhook
			return webhook.Channel{
				Name: c.Name, WebhookURL: c.WebhookURL, Location: sc.Location, Deadline: w.Deadline.D(),
				Policy: &webhook.Policy{Kind: w.Retry, Interval: w.Interval, MaxAttempts: w.MaxAttempts},
			}, ok
		},
	})
}

// journalWebhook records a webhook attempt in the journal (SIM-4), where
// the conformance report finds slow and non-OK receivers (WH-2).
func (s *Sim) journalWebhook(p webhook.Push, a webhook.Attempt) {
	body, _ := json.Marshal(p.Event)
	s.journal.RecordWebhook(journal.WebhookAttempt{
		At: a.At, URL: a.URL, Channel: p.Channel, RequestBody: body,
		Status: a.Status, ResponseBody: []byte(a.Body),
		Latency: time.Duration(a.LatencyMs * float64(time.Millisecond)), Err: a.Error,
	})
}
