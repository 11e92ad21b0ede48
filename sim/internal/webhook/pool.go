package webhook

import (
	"container/heap"
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
)

// Delivery runs off the request path (issue 23): pending pushes sit in
// an in-memory index ordered by due time, a heap per channel (each
// channel's clock may run apart), so scheduling is O(log n) and an idle
// tick looks at one entry a channel; and a fixed pool of
// workers attempts the due ones, each attempt under its push's deadline.
// Callers that move the clock or schedule a push dispatch the due ones
// and answer at once with what became due; a caller that asks to wait
// does so for a bounded time it names (Batch.Wait, Settle), so a
// receiver that never answers holds no control call beyond its ask.

// Workers is how many attempts run at once.
const Workers = 8

// MaxPending bounds the pending pushes of one channel; more are refused
// with 429.
const MaxPending = 10_000

// due is an index entry: where a pending push is and when it is due.
type due struct {
	at, created time.Time
	channel, id string
}

type dueHeap []due

func (h dueHeap) Len() int { return len(h) }
func (h dueHeap) Less(i, j int) bool {
	if c := h[i].at.Compare(h[j].at); c != 0 {
		return c < 0
	}
	return h[i].created.Before(h[j].created)
}
func (h dueHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *dueHeap) Push(x any)   { *h = append(*h, x.(due)) }
func (h *dueHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// job is one dispatched push and the batch waiting on it.
type job struct {
	d     due
	batch *sync.WaitGroup
}

// pool is the Scheduler's index and workers; its fields are guarded by mu.
type pool struct {
	mu      sync.Mutex
	loaded  bool
	idx     map[string]*dueHeap // by channel
	pending map[string]int      // per channel: indexed or being attempted
	flying  map[string]bool     // ids dispatched and not yet back
	// attempting holds the flying ids a worker has taken up.
	attempting map[string]bool
	fair       fairQueue // dispatched jobs, by channel (fair.go)
	wake       chan struct{}
	// landed is closed (and replaced) each time an attempt is recorded,
	// waking whoever waits for a push to settle.
	landed chan struct{}
	// seq numbers the dispatches that found something due; recent keeps
	// the last maxRecent of them, so a call that moved the clock also
	// reports (and waits for) what a tick dispatched meanwhile.
	seq    uint64
	recent []dispatched

	start   sync.Once
	ctx     context.Context
	cancel  context.CancelFunc
	workers sync.WaitGroup
}

// loadLocked reads the pending pushes from the store into the index,
// once (after a restart).
func (s *Scheduler) loadLocked() error {
	if s.p.loaded {
		return nil
	}
	raws, err := s.o.Store.Webhooks("")
	if err != nil {
		return err
	}
	s.p.idx, s.p.pending = map[string]*dueHeap{}, map[string]int{}
	for _, raw := range raws {
		var p Push
		if json.Unmarshal(raw, &p) == nil && p.State == Pending {
			s.p.pending[p.Channel]++
			if !s.p.flying[p.ID] { // one being attempted comes back by itself
				h := s.p.idx[p.Channel]
				if h == nil {
					h = &dueHeap{}
					s.p.idx[p.Channel] = h
				}
				*h = append(*h, due{p.Due, p.CreatedAt, p.Channel, p.ID})
			}
		}
	}
	for _, h := range s.p.idx {
		heap.Init(h)
	}
	s.p.loaded = true
	return nil
}

// roomLocked says whether n more pushes fit the channel's bound. At the
// bound it recounts the channel from the store first: a reset may have
// deleted pushes the index still holds.
func (s *Scheduler) roomLocked(channel string, n int) (bool, error) {
	if s.p.pending[channel]+n <= MaxPending {
		return true, nil
	}
	s.p.loaded = false
	if err := s.loadLocked(); err != nil {
		return false, err
	}
	return s.p.pending[channel]+n <= MaxPending, nil
}

func (s *Scheduler) indexLocked(p Push) {
	h := s.p.idx[p.Channel]
	if h == nil {
		h = &dueHeap{}
		s.p.idx[p.Channel] = h
	}
	heap.Push(h, due{p.Due, p.CreatedAt, p.Channel, p.ID})
}

// Due names a push one dispatch handed to the workers.
type Due struct {
	ID      string `json:"id"`
	Channel string `json:"channel"`
}

// Batch is what dispatches handed to the workers.
type Batch struct {
	// Pushes became due, by dispatch, then channel, then due time.
	Pushes []Due
	done   []<-chan struct{}
}

// dispatched is one dispatch that found something due.
type dispatched struct {
	seq    uint64
	pushes []Due
	done   <-chan struct{}
}

// maxRecent bounds the dispatches kept for Since.
const maxRecent = 64

// Wait waits until every push of b has been attempted once, or ctx ends;
// it says whether they all were.
func (b Batch) Wait(ctx context.Context) bool {
	for _, done := range b.done {
		select {
		case <-done:
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// Mark is where the dispatches stand now: Since(mark) is every dispatch
// after it.
func (s *Scheduler) Mark() uint64 {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	return s.p.seq
}

// Since dispatches every push due by now, and returns it with what the
// dispatches since mark (the background tick's too) handed to the
// workers, at once; the attempts run in the background, each under its
// push's deadline.
func (s *Scheduler) Since(mark uint64) (Batch, error) {
	_, err := s.Dispatch()
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	var b Batch
	for _, d := range s.p.recent {
		if d.seq > mark {
			b.Pushes = append(b.Pushes, d.pushes...)
			b.done = append(b.done, d.done)
		}
	}
	return b, err
}

// Dispatch hands every push due by now to the workers and returns them
// at once; their attempts run in the background, each under its push's
// deadline.
func (s *Scheduler) Dispatch() (Batch, error) {
	s.startWorkers()
	done := make(chan struct{})
	wg := &sync.WaitGroup{}
	s.p.mu.Lock()
	if err := s.loadLocked(); err != nil {
		s.p.mu.Unlock()
		return Batch{}, err
	}
	var out []Due
	channels := make([]string, 0, len(s.p.idx))
	for channel := range s.p.idx {
		channels = append(channels, channel)
	}
	slices.Sort(channels) // a stable order for the answer
	for _, channel := range channels {
		h := s.p.idx[channel]
		if len(*h) == 0 {
			delete(s.p.idx, channel)
			continue
		}
		now := clock.NowFor(s.o.Clock, channel) // each channel's schedule runs on its own time
		for len(*h) > 0 && !(*h)[0].at.After(now) {
			d := heap.Pop(h).(due)
			if s.p.flying == nil {
				s.p.flying = map[string]bool{}
			}
			s.p.flying[d.id] = true
			wg.Add(1)
			s.p.fair.push(job{d, wg})
			out = append(out, Due{ID: d.id, Channel: d.channel})
		}
	}
	if len(out) == 0 {
		s.p.mu.Unlock()
		return Batch{}, nil
	}
	s.p.seq++
	if len(s.p.recent) == maxRecent {
		s.p.recent = slices.Delete(s.p.recent, 0, 1)
	}
	s.p.recent = append(s.p.recent, dispatched{s.p.seq, out, done})
	s.p.mu.Unlock()
	for range min(len(out), Workers) {
		select {
		case s.p.wake <- struct{}{}:
		default:
		}
	}
	go func() { wg.Wait(); close(done) }()
	return Batch{Pushes: out, done: []<-chan struct{}{done}}, nil
}

// Delivery states of a push handed to the workers, beside a Push's own
// (pending, delivered, failed), which it shows once its attempt is in.
const (
	// StateDue: due, waiting for a worker.
	StateDue = "due"
	// StateDelivering: a worker is attempting it.
	StateDelivering = "delivering"
	// StateGone: deleted (a reset) since it became due.
	StateGone = "gone"
)

// DueState is a push that became due and its state now.
type DueState struct {
	Due
	State string `json:"state"`
}

// States tells the state of each push now: StateDue or StateDelivering
// while its attempt is not in, then its own state (pending again when a
// retry is due later), StateGone if it was deleted.
func (s *Scheduler) States(ds []Due) ([]DueState, error) {
	out := make([]DueState, 0, len(ds))
	for _, d := range ds {
		st, err := s.state(d)
		if err != nil {
			return nil, err
		}
		out = append(out, DueState{d, st})
	}
	return out, nil
}

func (s *Scheduler) state(d Due) (string, error) {
	s.p.mu.Lock()
	attempting, flying := s.p.attempting[d.ID], s.p.flying[d.ID]
	s.p.mu.Unlock()
	switch {
	case attempting:
		return StateDelivering, nil
	case flying:
		return StateDue, nil
	}
	p, ok, err := s.Lookup(d.Channel, d.ID)
	switch {
	case err != nil:
		return "", err
	case !ok:
		return StateGone, nil
	case p.State == Pending && !p.Due.After(clock.NowFor(s.o.Clock, p.Channel)):
		return StateDue, nil // due, not yet handed to the workers
	}
	return p.State, nil
}

// settleRecheck is how often Settle looks again without an attempt
// landing: a reset or a clock move changes a push without one.
const settleRecheck = 100 * time.Millisecond

// Settle waits until the push has settled, or ctx ends, and returns it
// as it then is: settled is delivered, failed, or pending with its next
// attempt due later; a push due now or being attempted has not. ok is
// false if there is no such push (or it was deleted meanwhile).
func (s *Scheduler) Settle(ctx context.Context, channel, id string) (Push, bool, error) {
	for {
		s.p.mu.Lock()
		if s.p.landed == nil {
			s.p.landed = make(chan struct{})
		}
		landed, flying := s.p.landed, s.p.flying[id]
		s.p.mu.Unlock()
		p, ok, err := s.Lookup(channel, id)
		if err != nil || !ok {
			return p, ok, err
		}
		if p.State != Pending || (!flying && p.Due.After(clock.NowFor(s.o.Clock, channel))) {
			return p, true, nil
		}
		t := time.NewTimer(settleRecheck)
		select {
		case <-ctx.Done():
			t.Stop()
			return p, true, nil
		case <-landed:
		case <-t.C:
		}
		t.Stop()
	}
}

func (s *Scheduler) startWorkers() {
	s.p.start.Do(func() {
		for range Workers {
			s.p.workers.Go(s.work)
		}
	})
}

// work attempts queued pushes until the scheduler stops.
func (s *Scheduler) work() {
	for {
		s.p.mu.Lock()
		j, ok := s.p.fair.take()
		if ok {
			if s.p.attempting == nil {
				s.p.attempting = map[string]bool{}
			}
			s.p.attempting[j.d.id] = true
			if len(s.p.fair.ring) > 0 { // more may run: pass the turn on
				select {
				case s.p.wake <- struct{}{}:
				default:
				}
			}
		}
		s.p.mu.Unlock()
		if !ok {
			select {
			case <-s.p.ctx.Done():
				return
			case <-s.p.wake:
				continue
			}
		}
		s.run(j)
	}
}

// run attempts one dispatched push, re-indexing it if it stays pending.
func (s *Scheduler) run(j job) {
	defer j.batch.Done()
	p, still, err := s.load(j.d.channel, j.d.id)
	if err == nil && still && s.p.ctx.Err() == nil {
		p, err = s.attempt(s.p.ctx, p, clock.NowFor(s.o.Clock, p.Channel))
	}
	if err != nil && s.p.ctx.Err() == nil {
		s.o.Log.Error("webhook delivery", "push", j.d.id, "err", err)
	}
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	delete(s.p.flying, j.d.id)
	delete(s.p.attempting, j.d.id)
	s.p.fair.done(j.d.channel)
	select { // a worker the share held back may take a job now
	case s.p.wake <- struct{}{}:
	default:
	}
	if s.p.landed != nil {
		close(s.p.landed)
		s.p.landed = nil
	}
	if still && p.State == Pending {
		s.indexLocked(p) // a retry, or cut by shutdown: due again later
		return
	}
	if s.p.pending[j.d.channel]--; s.p.pending[j.d.channel] <= 0 {
		delete(s.p.pending, j.d.channel)
	}
}

// load reads a push's current record; still is false if it was deleted
// (a reset) or is no longer pending.
func (s *Scheduler) load(channel, id string) (Push, bool, error) {
	raw, ok, err := s.o.Store.Webhook(channel, id)
	if err != nil || !ok {
		return Push{}, false, err
	}
	var p Push
	if err := json.Unmarshal(raw, &p); err != nil {
		return Push{}, false, err
	}
	return p, p.State == Pending, nil
}

// Stop ends the workers (a push being attempted stays pending and is
// tried again after a restart) and waits for them.
func (s *Scheduler) Stop() {
	s.p.cancel()
	s.startWorkers() // so Wait does not race a later start
	s.p.workers.Wait()
}

// Pending is how many pushes of a channel are pending.
func (s *Scheduler) Pending(channel string) int {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	_ = s.loadLocked()
	return s.p.pending[channel]
}

// errFull is the refusal of a push beyond MaxPending.
func errFull(channel string) error {
	return refusal.New(refusal.LimitReached, "channel %s already has the maximum of 10000 pending pushes; move the clock or reset the channel first", channel)
}
