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
	pending map[uint64]chan struct{}
}

// pend marks a numbered exchange whose answer has started as pending.
func (j *Journal) pend(seq uint64) {
	j.answered.mu.Lock()
	if j.answered.pending == nil {
		j.answered.pending = map[uint64]chan struct{}{}
	}
	j.answered.pending[seq] = make(chan struct{})
	j.answered.mu.Unlock()
}

// queued marks a numbered exchange as handed to the writer (or dropped).
func (j *Journal) queued(seq uint64) {
	j.answered.mu.Lock()
	if ch, ok := j.answered.pending[seq]; ok {
		close(ch)
		delete(j.answered.pending, seq)
	}
	j.answered.mu.Unlock()
}

// Settle waits until every exchange answered before the call is stored.
func (j *Journal) Settle(ctx context.Context) error {
	j.answered.mu.Lock()
	waits := make([]chan struct{}, 0, len(j.answered.pending))
	for _, ch := range j.answered.pending {
		waits = append(waits, ch)
	}
	j.answered.mu.Unlock()
	for _, ch := range waits {
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return j.Flush(ctx)
}

func formatSeq(seq uint64) string { return strconv.FormatUint(seq, 10) }
