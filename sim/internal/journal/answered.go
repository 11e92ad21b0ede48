package journal

import (
	"context"
	"strconv"
	"sync"
)

// SeqHeader carries an answer's journal sequence number (its watermark):
// a publisher's test reads it and counts from it (verify's since).
const SeqHeader = "X-Rewardsim-Seq"

// answered tracks exchanges whose answer has started on the wire but
// whose entry is not yet queued: a reader that must see every exchange
// answered before it was called (verify) waits for those first, then
// flushes the queue. Without it, a test that verifies right after its
// call could race the journal's hand-off.
type answered struct {
	mu      sync.Mutex
	pending map[uint64]caller
	// waiters counts Settle calls waiting on changed, so a hand-off wakes
	// no one when no one waits. (A channel per exchange was an
	// allocation on every request's goroutine.)
	waiters int
	changed sync.Cond
}

// caller is whom a pending exchange was for, as noted when its answer
// started: the way in notes it before any answer (httpx.Outcome), so it
// is the channel its entry will have.
type caller struct{ channel, channelID string }

// counts reports whether a reader of channel ("" every channel) could
// count the exchange: Filter's own test of a channel.
func (w caller) counts(channel string) bool {
	return channel == "" || w.channel == channel || w.channelID == channel
}

// pend marks a numbered exchange whose answer has started as pending.
func (j *Journal) pend(seq uint64, who caller) {
	a := &j.answered
	a.mu.Lock()
	if a.pending == nil {
		a.pending = map[uint64]caller{}
	}
	a.pending[seq] = who
	a.mu.Unlock()
}

// queued marks a numbered exchange as handed to the writer (or dropped).
func (j *Journal) queued(seq uint64) {
	a := &j.answered
	a.mu.Lock()
	delete(a.pending, seq)
	if a.waiters > 0 {
		a.changed.Broadcast()
	}
	a.mu.Unlock()
}

// Settle waits until every exchange answered before the call that a
// reader of channel ("" every channel) could count is stored, at most
// SettleWait: then it stores what it can and returns *Unsettled. An
// exchange of another channel (or of none) is not waited for: a client
// that stops reading holds up the readers of its own channel only
// (issue 55).
func (j *Journal) Settle(ctx context.Context, channel string) error {
	parent := ctx
	ctx, cancel := context.WithTimeout(parent, SettleWait)
	defer cancel()
	a := &j.answered
	a.mu.Lock()
	if a.changed.L == nil {
		a.changed.L = &a.mu
	}
	waits := make([]uint64, 0, len(a.pending))
	for seq, who := range a.pending {
		if who.counts(channel) {
			waits = append(waits, seq)
		}
	}
	stop := context.AfterFunc(ctx, func() {
		a.mu.Lock()
		a.changed.Broadcast()
		a.mu.Unlock()
	})
	defer stop()
	for _, seq := range waits {
		for {
			if _, ok := a.pending[seq]; !ok {
				break
			}
			if ctx.Err() != nil {
				a.mu.Unlock()
				return unsettled(parent, j, seq)
			}
			a.waiters++
			a.changed.Wait()
			a.waiters--
		}
	}
	a.mu.Unlock()
	return j.Flush(ctx)
}

func formatSeq(seq uint64) string { return strconv.FormatUint(seq, 10) }
