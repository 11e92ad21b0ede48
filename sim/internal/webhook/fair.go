package webhook

import "slices"

// fairQueue holds the dispatched jobs of each channel and hands them to
// the workers round robin over the channels, never letting one channel
// hold more than its share of the workers. First come first served let
// one channel's thousands of pushes to a receiver that never answers
// take every worker for hours while another channel's push, due now,
// waited behind them (issue 42). Guarded by the pool's mu.
type fairQueue struct {
	queues map[string][]job // by channel; present only when not empty
	ring   []string         // the channels with queued jobs, in turn
	next   int              // the ring's position of the next turn
	busy   map[string]int   // by channel: jobs a worker is attempting
}

func (q *fairQueue) push(j job) {
	if q.queues == nil {
		q.queues, q.busy = map[string][]job{}, map[string]int{}
	}
	ch := j.d.channel
	if _, ok := q.queues[ch]; !ok {
		q.ring = append(q.ring, ch)
	}
	q.queues[ch] = append(q.queues[ch], j)
}

// take hands out the next channel's oldest job, skipping channels at
// their share; ok is false when none may run now.
func (q *fairQueue) take() (j job, ok bool) {
	share := q.share()
	for i := range len(q.ring) {
		k := (q.next + i) % len(q.ring)
		ch := q.ring[k]
		if q.busy[ch] >= share {
			continue
		}
		jobs := q.queues[ch]
		j, jobs[0] = jobs[0], job{}
		if len(jobs) == 1 {
			delete(q.queues, ch)
			q.ring = slices.Delete(q.ring, k, k+1)
			q.next = k // the following channel moved into k
		} else {
			q.queues[ch] = jobs[1:]
			q.next = k + 1
		}
		if q.next >= len(q.ring) {
			q.next = 0
		}
		q.busy[ch]++
		return j, true
	}
	return job{}, false
}

// done notes that a worker finished a job of channel.
func (q *fairQueue) done(channel string) {
	if q.busy[channel]--; q.busy[channel] <= 0 {
		delete(q.busy, channel)
	}
}

// share is how many workers one channel may hold: an equal part among
// the channels with work (queued or being attempted), at least one, and
// never all of them, so another channel's push due now finds a worker
// free at once rather than after a deadline.
func (q *fairQueue) share() int {
	active := len(q.busy)
	for _, ch := range q.ring {
		if q.busy[ch] == 0 {
			active++
		}
	}
	return max(1, min(Workers-1, Workers/max(active, 1)))
}

// Forget drops a deleted channel's pushes from the index (their records
// went with the channel), so a channel made again under the name starts
// with none pending.
func (s *Scheduler) Forget(channel string) {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	delete(s.p.idx, channel)
	delete(s.p.pending, channel)
}
