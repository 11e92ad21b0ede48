package webhook

import (
	"container/heap"
	"context"
	"encoding/json"
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
// and wait at most a short, bounded time for their attempts, so a
// receiver that never answers cannot hold a control call.

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
	queue   []job
	wake    chan struct{}

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

// dispatch hands every push due by now to the workers and returns how
// many, and a channel closed once they have all been attempted.
func (s *Scheduler) dispatch() (int, <-chan struct{}, error) {
	s.startWorkers()
	done := make(chan struct{})
	batch := &sync.WaitGroup{}
	s.p.mu.Lock()
	if err := s.loadLocked(); err != nil {
		s.p.mu.Unlock()
		close(done)
		return 0, done, err
	}
	n := 0
	for channel, h := range s.p.idx {
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
			batch.Add(1)
			s.p.queue = append(s.p.queue, job{d, batch})
			n++
		}
	}
	s.p.mu.Unlock()
	for range min(n, Workers) {
		select {
		case s.p.wake <- struct{}{}:
		default:
		}
	}
	go func() { batch.Wait(); close(done) }()
	return n, done, nil
}

// Fire dispatches every due push and waits up to wait for their
// attempts; it returns how many became due. A slow or silent receiver
// is still attempted, in the background, under its deadline.
func (s *Scheduler) Fire(wait time.Duration) (int, error) {
	n, done, err := s.dispatch()
	if n > 0 && wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
		}
	}
	return n, err
}

// RunDue dispatches every due push and waits until each has been
// attempted (or ctx ends); it returns how many it dispatched.
func (s *Scheduler) RunDue(ctx context.Context) (int, error) {
	n, done, err := s.dispatch()
	select {
	case <-done:
	case <-ctx.Done():
	}
	return n, err
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
		var j job
		ok := len(s.p.queue) > 0
		if ok {
			j = s.p.queue[0]
			s.p.queue[0] = job{}
			s.p.queue = s.p.queue[1:]
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
