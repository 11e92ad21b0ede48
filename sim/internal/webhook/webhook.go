// Package webhook schedules and delivers the service's coupon-status
// pushes (interface section 6.1; WH-1..WH-5). A push is scheduled for a
// simulated time, kept in the store until it is done (so it survives a
// restart), fired when the simulated clock reaches it, and every attempt
// is recorded: HTTP status, body, latency. A receiver that does not
// answer a JSON object with status "OK" within the deadline gets a
// finding and retries by the push's policy.
package webhook

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/outbound"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
)

// EventInvalidated is the contract's one eventType.
const EventInvalidated = "COUPON_INVALIDATED"

// Reasons are the contract's reason values (WH-1).
var Reasons = []string{"BRAND_CALLED_OUT", "OUT_OF_STOCK", "TECHNICAL_GLITCH", "FRAUD_DETECTED", "OFFER_TERMINATED"}

// Event is the push body, exactly the fields of section 6.1.
type Event struct {
	ChannelName   string `json:"channelName"`
	OfferID       string `json:"offerId"`
	EventType     string `json:"eventType"`
	ExpiredDate   string `json:"expiredDate"`
	Reason        string `json:"reason"`
	ReasonMessage string `json:"reasonMessage"`
	ReferenceID   string `json:"referenceId"`
}

// Retry policy kinds.
const (
	RetryNone        = "none"
	RetryFixed       = "fixed"
	RetryExponential = "exponential"
)

// Policy says how a failed push is retried. Waits are simulated time:
// with a frozen clock a retry waits for the clock to be moved.
type Policy struct {
	Kind string `json:"kind"`
	// Interval is the wait before the first retry (fixed: before each).
	Interval model.Duration `json:"interval,omitempty"`
	// MaxAttempts counts the first attempt too.
	MaxAttempts int `json:"maxAttempts,omitempty"`
}

// DefaultPolicy: exponential, 30s then 60s then 120s, 4 attempts in all.
var DefaultPolicy = Policy{Kind: RetryExponential, Interval: model.Duration(30 * time.Second), MaxAttempts: 4}

// DefaultDeadline is how long a receiver has to answer.
const DefaultDeadline = 5 * time.Second

// MaxDeadline bounds every deadline: a silent receiver with a long
// deadline holds one of the Workers that long.
const MaxDeadline = time.Minute

// Push states.
const (
	Pending   = "pending"
	Delivered = "delivered"
	Failed    = "failed"
)

// Attempt is one delivery try.
type Attempt struct {
	N int `json:"n"`
	// At is the simulated time of the attempt.
	At        time.Time `json:"at"`
	URL       string    `json:"url"`
	Status    int       `json:"status,omitempty"`
	Body      string    `json:"body,omitempty"`
	LatencyMs float64   `json:"latencyMs"`
	Error     string    `json:"error,omitempty"`
	OK        bool      `json:"ok"`
}

// Push is one scheduled delivery and its history.
type Push struct {
	ID       string         `json:"id"`
	Channel  string         `json:"channel"`
	Event    Event          `json:"event"`
	Due      time.Time      `json:"due"`
	State    string         `json:"state"`
	Policy   Policy         `json:"retry"`
	Deadline model.Duration `json:"deadline"`
	Attempts []Attempt      `json:"attempts"`
	Findings []string       `json:"findings"`
	// Invalidated is set once the offer's coupons were marked (WH-4).
	Invalidated bool      `json:"invalidated"`
	CreatedAt   time.Time `json:"createdAt"`
}

// Request asks for a push. Empty fields take defaults: eventType
// COUPON_INVALIDATED, reasonMessage a text naming the reason, expiredDate
// the due time in the channel's timezone, referenceId a fresh UUID, at now.
type Request struct {
	Channel       string `json:"channel"`
	OfferID       string `json:"offerId"`
	EventType     string `json:"eventType,omitempty"`
	ExpiredDate   string `json:"expiredDate,omitempty"`
	Reason        string `json:"reason"`
	ReasonMessage string `json:"reasonMessage,omitempty"`
	ReferenceID   string `json:"referenceId,omitempty"`
	// At is the simulated due time (RFC 3339); empty means now.
	At string `json:"at,omitempty"`
	// Repeat sends the same body (same referenceId) this many times (WH-3).
	Repeat   int            `json:"repeat,omitempty"`
	Retry    *Policy        `json:"retry,omitempty"`
	Deadline model.Duration `json:"deadline,omitempty"`
}

// Store keeps push records.
type Store interface {
	PutWebhook(channel, id string, v any) error
	// UpdateWebhook rewrites an existing push only (a reset may have
	// deleted it while it was being delivered).
	UpdateWebhook(channel, id string, v any) (bool, error)
	Webhooks(channel string) ([]json.RawMessage, error)
	// Webhook reads one push record; ok is false when it is gone.
	Webhook(channel, id string) (raw json.RawMessage, ok bool, err error)
}

// Invalidator marks an offer's delivered coupons invalidated from at
// (WH-4). The coupons area provides it.
type Invalidator interface {
	InvalidateOffer(channel, offerID string, at time.Time, reason string) error
}

// Channel is what the scheduler needs of a channel.
type Channel struct {
	Name, WebhookURL string
	Location         *time.Location
	// Policy and Deadline, if set, are the channel's defaults (its
	// scenario's switches.webhook) for requests that name none.
	Policy   *Policy
	Deadline time.Duration
}

// Options configure a Scheduler.
type Options struct {
	Store Store
	Clock clock.PerChannel
	// Channel finds a channel by name, at scheduling and at delivery time.
	Channel     func(name string) (Channel, bool)
	Invalidator Invalidator
	Client      *http.Client
	Rand        io.Reader
	// Wall measures latency; nil means time.Now.
	Wall     func() time.Time
	Deadline time.Duration
	Policy   Policy
	Log      *slog.Logger
	// OnAttempt, if set, hears of every attempt once it is recorded (the
	// journal keeps them beside the exchanges).
	OnAttempt func(Push, Attempt)
}

// Scheduler keeps and fires pushes.
type Scheduler struct {
	o Options
	p pool
}

// New returns a Scheduler.
func New(o Options) *Scheduler {
	if o.Client == nil {
		// Redirects are not followed: a push goes to the registered URL only.
		o.Client = &http.Client{CheckRedirect: outbound.Never}
	}
	if o.Wall == nil {
		o.Wall = time.Now
	}
	if o.Deadline <= 0 {
		o.Deadline = DefaultDeadline
	}
	if o.Policy.Kind == "" {
		o.Policy = DefaultPolicy
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	s := &Scheduler{o: o}
	s.p.ctx, s.p.cancel = context.WithCancel(context.Background())
	s.p.wake = make(chan struct{}, Workers)
	return s
}

// bad refuses a Request as invalid.
func bad(format string, a ...any) error { return refusal.New(refusal.Invalid, format, a...) }

// MaxRepeat bounds Request.Repeat.
const MaxRepeat = 10

// Schedule checks r and stores its push(es), all pending.
func (s *Scheduler) Schedule(r Request) ([]Push, error) {
	ch, ok := s.o.Channel(r.Channel)
	if !ok {
		return nil, refusal.New(refusal.NotFound, "no channel named %q", r.Channel)
	}
	if ch.WebhookURL == "" {
		return nil, bad("channel %s has no registered webhook URL (register it with webhookUrl)", r.Channel)
	}
	if r.OfferID == "" {
		return nil, bad("offerId is required")
	}
	if !slices.Contains(Reasons, r.Reason) {
		return nil, bad("reason %q is not one of %v", r.Reason, Reasons)
	}
	now := clock.NowFor(s.o.Clock, r.Channel)
	due := now
	if r.At != "" {
		t, err := time.Parse(time.RFC3339Nano, r.At)
		if err != nil {
			return nil, bad("at %q is not an RFC 3339 time with offset", r.At)
		}
		due = t
	}
	ev, err := s.event(r, ch, due)
	if err != nil {
		return nil, err
	}
	pol, deadline, err := s.retries(r, ch)
	if err != nil {
		return nil, err
	}
	n := r.Repeat
	if n == 0 {
		n = 1
	}
	if n < 1 || n > MaxRepeat {
		return nil, bad("repeat %d is outside 1..%d", r.Repeat, MaxRepeat)
	}
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	if err := s.loadLocked(); err != nil {
		return nil, err
	}
	if ok, err := s.roomLocked(ch.Name, n); err != nil || !ok {
		if err == nil {
			err = errFull(ch.Name)
		}
		return nil, err
	}
	var out []Push
	for range n {
		id, err := s.newID(8)
		if err != nil {
			return nil, err
		}
		p := Push{ID: id, Channel: ch.Name, Event: ev, Due: due, State: Pending, Policy: pol,
			Deadline: deadline, Attempts: []Attempt{}, Findings: []string{}, CreatedAt: now}
		if err := s.o.Store.PutWebhook(p.Channel, p.ID, p); err != nil {
			return nil, err
		}
		s.indexLocked(p)
		s.p.pending[p.Channel]++
		out = append(out, p)
	}
	return out, nil
}

// event is the payload r asks for on ch, due at due, its missing
// fields filled in.
func (s *Scheduler) event(r Request, ch Channel, due time.Time) (Event, error) {
	loc := ch.Location
	if loc == nil {
		loc = time.UTC
	}
	ev := Event{
		ChannelName: ch.Name, OfferID: r.OfferID, EventType: r.EventType,
		ExpiredDate: r.ExpiredDate, Reason: r.Reason, ReasonMessage: r.ReasonMessage, ReferenceID: r.ReferenceID,
	}
	if ev.EventType == "" {
		ev.EventType = EventInvalidated
	}
	if ev.ExpiredDate == "" {
		ev.ExpiredDate = due.In(loc).Format(time.RFC3339)
	} else if _, err := time.Parse(time.RFC3339Nano, ev.ExpiredDate); err != nil {
		return Event{}, bad("expiredDate %q is not ISO 8601 with an offset (like 2026-01-15T10:00:00+05:30)", ev.ExpiredDate)
	}
	if ev.ReasonMessage == "" {
		ev.ReasonMessage = "Coupons of offer " + r.OfferID + " were invalidated: " + r.Reason
	}
	if ev.ReferenceID == "" {
		id, err := s.newUUID()
		if err != nil {
			return Event{}, err
		}
		ev.ReferenceID = id
	}
	return ev, nil
}

// retries is the retry policy and the answer deadline of r's pushes:
// r's own, else ch's, else the scheduler's.
func (s *Scheduler) retries(r Request, ch Channel) (Policy, model.Duration, error) {
	pol := s.o.Policy
	if ch.Policy != nil {
		pol = *ch.Policy
	}
	if r.Retry != nil {
		pol = *r.Retry
	}
	if err := checkPolicy(&pol); err != nil {
		return Policy{}, 0, err
	}
	if r.Deadline.D() > MaxDeadline {
		return Policy{}, 0, bad("deadline %s is over the %s maximum", r.Deadline.D(), MaxDeadline)
	}
	deadline := r.Deadline
	if deadline <= 0 {
		deadline = model.Duration(min(ch.Deadline, MaxDeadline))
	}
	if deadline <= 0 {
		deadline = model.Duration(min(s.o.Deadline, MaxDeadline))
	}
	return pol, deadline, nil
}

func checkPolicy(p *Policy) error {
	switch p.Kind {
	case RetryNone:
		p.MaxAttempts, p.Interval = 1, 0
		return nil
	case RetryFixed, RetryExponential:
	default:
		return bad("retry kind %q is not one of none, fixed, exponential", p.Kind)
	}
	if p.Interval <= 0 {
		p.Interval = DefaultPolicy.Interval
	}
	if p.MaxAttempts == 0 {
		p.MaxAttempts = DefaultPolicy.MaxAttempts
	}
	if p.MaxAttempts < 1 || p.MaxAttempts > 20 {
		return bad("retry maxAttempts %d is outside 1..20", p.MaxAttempts)
	}
	return nil
}

func (s *Scheduler) newID(n int) (string, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(s.o.Rand, b); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// newUUID is an RFC 9562 version 4 UUID from the injected random source:
// the version and variant bits set, so strict readers (Java's UUID, JSON
// Schema format "uuid") accept it.
func (s *Scheduler) newUUID() (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(s.o.Rand, b[:]); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // variant 10
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
}

// List returns the pushes of a channel ("" = all), by due time.
func (s *Scheduler) List(channel string) ([]Push, error) {
	raws, err := s.o.Store.Webhooks(channel)
	if err != nil {
		return nil, err
	}
	out := make([]Push, 0, len(raws))
	for _, raw := range raws {
		var p Push
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	slices.SortStableFunc(out, func(a, b Push) int {
		if c := a.Due.Compare(b.Due); c != 0 {
			return c
		}
		return a.CreatedAt.Compare(b.CreatedAt)
	})
	return out, nil
}

// Get finds one push by id.
func (s *Scheduler) Get(id string) (Push, bool, error) {
	all, err := s.List("")
	for _, p := range all {
		if p.ID == id {
			return p, true, err
		}
	}
	return Push{}, false, err
}

// Lookup reads one push of a channel.
func (s *Scheduler) Lookup(channel, id string) (Push, bool, error) {
	p, _, err := s.load(channel, id)
	return p, p.ID != "", err
}

// Run dispatches the due pushes every interval of real time until ctx
// ends, so pushes fire while the clock runs (real or offset mode) too;
// then it stops the workers.
func (s *Scheduler) Run(ctx context.Context, interval time.Duration) {
	defer s.Stop()
	clock.Every(ctx, interval, func() {
		if _, err := s.Dispatch(); err != nil && ctx.Err() == nil {
			s.o.Log.Error("webhook delivery", "err", err)
		}
	})
}

// MaxAnswer bounds how much of a receiver's answer is read and recorded.
const MaxAnswer = 64 << 10

func (s *Scheduler) attempt(ctx context.Context, p Push, now time.Time) (Push, error) {
	if p.Event.EventType == EventInvalidated && !p.Invalidated && s.o.Invalidator != nil {
		at, err := time.Parse(time.RFC3339Nano, p.Event.ExpiredDate)
		if err != nil {
			at = now
		}
		if err := s.o.Invalidator.InvalidateOffer(p.Channel, p.Event.OfferID, at, p.Event.Reason); err != nil {
			p.Findings = append(p.Findings, "invalidating the offer's coupons failed: "+err.Error())
		}
		p.Invalidated = true
	}
	a := Attempt{N: len(p.Attempts) + 1, At: now}
	ch, ok := s.o.Channel(p.Channel)
	switch {
	case !ok || ch.WebhookURL == "":
		a.Error = "channel " + p.Channel + " has no registered webhook URL any more"
	default:
		a.URL = ch.WebhookURL
		s.deliver(ctx, &a, p)
	}
	if ctx.Err() != nil {
		return p, nil // shutting down: the push stays pending and is tried after restart
	}
	p.Attempts = append(p.Attempts, a)
	if s.o.OnAttempt != nil {
		s.o.OnAttempt(p, a)
	}
	switch {
	case a.OK:
		p.State = Delivered
	default:
		p.Findings = append(p.Findings, fmt.Sprintf("attempt %d: %s", a.N, a.Error))
		if a.N < p.Policy.MaxAttempts && p.Policy.Kind != RetryNone {
			p.Due = now.Add(backoff(p.Policy, a.N))
		} else {
			p.State = Failed
		}
	}
	_, err := s.o.Store.UpdateWebhook(p.Channel, p.ID, p)
	return p, err
}

func backoff(p Policy, attempt int) time.Duration {
	d := p.Interval.D()
	if p.Kind == RetryExponential {
		for range attempt - 1 {
			d *= 2
		}
	}
	return d
}

// deliver POSTs the event and judges the answer.
func (s *Scheduler) deliver(ctx context.Context, a *Attempt, p Push) {
	body, _ := json.Marshal(p.Event)
	ctx, cancel := context.WithTimeout(ctx, p.Deadline.D())
	defer cancel()
	start := s.o.Wall()
	defer func() { a.LatencyMs = float64(s.o.Wall().Sub(start).Microseconds()) / 1000 }()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.URL, bytes.NewReader(body))
	if err != nil {
		a.Error = "bad webhook URL: " + err.Error()
		return
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := s.o.Client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			a.Error = fmt.Sprintf("no answer within the %s deadline (the receiver must answer quickly and process asynchronously)", p.Deadline.D())
		} else {
			a.Error = "request failed: " + err.Error()
		}
		return
	}
	defer res.Body.Close()
	a.Status = res.StatusCode
	raw, err := io.ReadAll(io.LimitReader(res.Body, MaxAnswer))
	a.Body = string(raw)
	if err != nil {
		a.Error = fmt.Sprintf("answer not read within the %s deadline: %v", p.Deadline.D(), err)
		return
	}
	a.Error = judge(res.StatusCode, raw)
	a.OK = a.Error == ""
}

// judge says what is wrong with an answer, or "".
func judge(status int, raw []byte) string {
	if status < 200 || status > 299 {
		return fmt.Sprintf("receiver answered HTTP %d; want 2xx with a JSON object whose status is \"OK\"", status)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return fmt.Sprintf("answer %.80q is not a JSON object; want {\"status\":\"OK\"}", raw)
	}
	if st, _ := obj["status"].(string); st != "OK" {
		return fmt.Sprintf("answer's status is %v, not the string \"OK\"", obj["status"])
	}
	return ""
}

// Deadline is the deadline in force for a channel whose scenario
// sets none (Options.Deadline, else 5 s).
func (s *Scheduler) Deadline() time.Duration { return s.o.Deadline }
