// Package limit is the capacity model of a channel: at most InFlight
// calls answered at once and at most Rate calls admitted a second (a
// token bucket of Burst tokens), beyond which a call waits up to Wait in
// a bounded queue, then is refused. It decides and counts; it writes no
// answer (the front door does, in the endpoint's shape).
//
// A waiting call blocks on a channel, a timer and its own context, never
// in a loop: a client that hangs up frees its place at once, and the
// limiter keeps no goroutine of its own (the rate's next token is one
// time.AfterFunc, armed only while a call waits for it).
package limit

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Bounds of a limit's values, so no setting can make the queue or a
// wait unbounded.
const (
	// MaxInFlight bounds InFlight.
	MaxInFlight = 100_000
	// MaxRate bounds Rate (calls a second).
	MaxRate = 1_000_000
	// MaxBurst bounds Burst.
	MaxBurst = 1_000_000
	// MaxWait bounds Wait: no call waits longer than the longest write
	// timeout a listener is given by default.
	MaxWait = 5 * time.Minute
	// MaxWaiting is how many calls of one channel may wait at once; the
	// next one is refused at once (reason Queue), so waiting memory is
	// bounded whatever the load.
	MaxWaiting = 10_000
)

// Config is one channel's limit. A zero field sets no bound.
type Config struct {
	// InFlight is how many of the channel's calls may be answered at once.
	InFlight int `json:"inFlight,omitempty" yaml:"inFlight"`
	// Rate is how many calls a second are admitted (a token bucket).
	Rate float64 `json:"rate,omitempty" yaml:"rate"`
	// Burst is the bucket's size: how many calls may be admitted at once
	// after a quiet spell. 0 is the documented default, DefaultBurst.
	Burst int `json:"burst,omitempty" yaml:"burst"`
	// Wait is how long a call over the limit waits for room before it is
	// refused; 0 refuses it at once.
	Wait model.Duration `json:"wait,omitempty" yaml:"wait"`
}

// Zero reports whether c bounds nothing.
func (c Config) Zero() bool { return c.InFlight == 0 && c.Rate == 0 }

// DefaultBurst is the bucket's size when Burst is 0: one second's worth
// of calls (the rate rounded up), at least 1. So a channel limited to
// 10/s may take 10 calls at once after a quiet second, and then 10 a
// second.
func (c Config) DefaultBurst() int {
	if c.Burst > 0 {
		return c.Burst
	}
	return max(1, int(math.Ceil(c.Rate)))
}

// Check says what is wrong with c, naming the field as a scenario file
// and the control API write it.
func (c Config) Check() error {
	switch {
	case c.InFlight < 0 || c.InFlight > MaxInFlight:
		return fmt.Errorf("inFlight %d is not from 0 to %d", c.InFlight, MaxInFlight)
	case c.Rate < 0 || c.Rate > MaxRate || math.IsNaN(c.Rate):
		return fmt.Errorf("rate %v is not from 0 to %d calls a second", c.Rate, MaxRate)
	case c.Burst < 0 || c.Burst > MaxBurst:
		return fmt.Errorf("burst %d is not from 0 to %d", c.Burst, MaxBurst)
	case c.Wait < 0 || c.Wait.D() > MaxWait:
		return fmt.Errorf("wait %s is not from 0 to %s", c.Wait.D(), MaxWait)
	case c.Zero():
		return errors.New("a limit needs inFlight or rate (0 bounds nothing)")
	}
	return nil
}

// Reasons a call was held or refused.
const (
	InFlight = "in-flight" // InFlight calls were being answered
	Rate     = "rate"      // the bucket was empty
	Queue    = "queue"     // MaxWaiting calls were waiting already
)

// Refused is a call the limit turned away: why, how long it waited and,
// for a rate limit, when the next token comes (RetryAfter, 0 unknown).
type Refused struct {
	Reason     string
	Waited     time.Duration
	RetryAfter time.Duration
}

func (r *Refused) Error() string {
	return fmt.Sprintf("over the channel's limit (%s) after waiting %s", r.Reason, r.Waited)
}

// Ticket is an admitted call's place: Release gives it back once the
// answer is written (more than once is harmless).
type Ticket struct {
	l *Limiter
	// Waited is how long the call waited for room, and Reason what held
	// it ("" when it waited not at all).
	Waited time.Duration
	Reason string
	once   atomic.Bool
}

// Release frees the call's in-flight place.
func (t *Ticket) Release() {
	if t == nil || t.l == nil || !t.once.CompareAndSwap(false, true) {
		return
	}
	t.l.release()
}

// Limiter is one channel's limit and its state. Its methods are safe for
// concurrent use.
type Limiter struct {
	mu       sync.Mutex
	cfg      Config
	burst    float64
	inFlight int
	tokens   float64
	last     time.Time
	waiting  list.List // of *waiter, oldest first
	timer    *time.Timer
	now      func() time.Time
	stats    Stats
}

// Stats are a limiter's counts since it was made, and what it holds now.
type Stats struct {
	InFlight int   `json:"inFlight"`
	Waiting  int   `json:"waiting"`
	Admitted int64 `json:"admitted"`
	Waited   int64 `json:"waited"`
	Refused  int64 `json:"refused"`
}

type waiter struct {
	ready   chan struct{} // closed when the call is admitted
	granted bool
	el      *list.Element
}

// New is a limiter of cfg (its bucket full).
func New(cfg Config) *Limiter {
	l := &Limiter{now: time.Now}
	l.cfg, l.burst = cfg, float64(cfg.DefaultBurst())
	l.tokens, l.last = l.burst, l.now()
	return l
}

// Config is the limit in force.
func (l *Limiter) Config() Config {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cfg
}

// Stats are the limiter's counts.
func (l *Limiter) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stats
	s.InFlight, s.Waiting = l.inFlight, l.waiting.Len()
	return s
}

// Set puts cfg in force: calls in flight keep their places; waiting calls
// the new limit has room for are admitted at once.
func (l *Limiter) Set(cfg Config) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refill()
	l.cfg, l.burst = cfg, float64(cfg.DefaultBurst())
	l.tokens = min(l.tokens, l.burst)
	l.dispatch()
}

// refill adds the tokens earned since last (l.mu held).
func (l *Limiter) refill() {
	now := l.now()
	if l.cfg.Rate > 0 {
		l.tokens = min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.cfg.Rate)
	}
	l.last = now
}

// blocked is what keeps a call out now, "" nothing (l.mu held, refilled).
func (l *Limiter) blocked() string {
	if l.cfg.InFlight > 0 && l.inFlight >= l.cfg.InFlight {
		return InFlight
	}
	if l.cfg.Rate > 0 && l.tokens < 1 {
		return Rate
	}
	return ""
}

// take admits one call (l.mu held, not blocked).
func (l *Limiter) take() {
	l.inFlight++
	if l.cfg.Rate > 0 {
		l.tokens--
	}
	l.stats.Admitted++
}

// nextToken is how long until the bucket holds a token (l.mu held).
func (l *Limiter) nextToken() time.Duration {
	if l.cfg.Rate <= 0 || l.tokens >= 1 {
		return 0
	}
	return time.Duration(math.Ceil((1 - l.tokens) / l.cfg.Rate * float64(time.Second)))
}

// dispatch admits waiting calls, oldest first, while there is room; when
// only the rate holds the oldest back, it arms one timer for the next
// token (l.mu held).
func (l *Limiter) dispatch() {
	l.refill()
	for l.waiting.Len() > 0 {
		why := l.blocked()
		if why == "" {
			w := l.waiting.Remove(l.waiting.Front()).(*waiter)
			w.el, w.granted = nil, true
			l.take()
			close(w.ready)
			continue
		}
		if why == Rate && l.timer == nil {
			l.timer = time.AfterFunc(l.nextToken(), func() {
				l.mu.Lock()
				defer l.mu.Unlock()
				l.timer = nil
				l.dispatch()
			})
		}
		return
	}
}

func (l *Limiter) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inFlight--
	l.dispatch()
}

// Admit admits one call, waiting up to the limit's Wait (or until ctx
// ends) when there is no room. A call refused returns *Refused; one whose
// ctx ended while it waited returns ctx's error. A call admitted must
// Release its ticket.
func (l *Limiter) Admit(ctx context.Context) (*Ticket, error) {
	l.mu.Lock()
	l.refill()
	why := l.blocked()
	if why == "" && l.waiting.Len() == 0 { // no overtaking a waiting call
		l.take()
		l.mu.Unlock()
		return &Ticket{l: l}, nil
	}
	if why == "" {
		why = Queue // room, but earlier calls are first in line
	}
	wait := l.cfg.Wait.D()
	if wait <= 0 || l.waiting.Len() >= MaxWaiting {
		if wait > 0 {
			why = Queue
		}
		l.stats.Refused++
		r := &Refused{Reason: why, RetryAfter: l.nextToken()}
		l.mu.Unlock()
		return nil, r
	}
	w := &waiter{ready: make(chan struct{})}
	w.el = l.waiting.PushBack(w)
	l.stats.Waited++
	l.dispatch() // arms the token timer if the rate holds it
	l.mu.Unlock()

	start := l.now()
	t := time.NewTimer(wait)
	defer t.Stop()
	var ctxErr error
	select {
	case <-w.ready:
		return &Ticket{l: l, Waited: l.now().Sub(start), Reason: why}, nil
	case <-t.C:
	case <-ctx.Done():
		ctxErr = ctx.Err()
	}
	l.mu.Lock()
	switch {
	case w.granted && ctxErr == nil: // admitted as the wait ran out: it has its place
		l.mu.Unlock()
		return &Ticket{l: l, Waited: l.now().Sub(start), Reason: why}, nil
	case w.granted: // admitted as its caller hung up: the place goes to the next
		l.inFlight--
		l.stats.Admitted--
	default:
		l.waiting.Remove(w.el)
	}
	if ctxErr == nil {
		l.stats.Refused++
	}
	l.refill()
	now := l.blocked()
	if now == "" {
		now = why
	}
	retry := l.nextToken()
	l.dispatch()
	l.mu.Unlock()
	if ctxErr != nil {
		return nil, ctxErr
	}
	return nil, &Refused{Reason: now, Waited: l.now().Sub(start), RetryAfter: retry}
}
