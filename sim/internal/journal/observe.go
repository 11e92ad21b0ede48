package journal

import (
	"sync"

	"github.com/rewardsim/rewardsim/sim/internal/outcome"
)

// Observer is told of each entry once it is stored, in the journal's
// writer goroutine: it must be quick and must not block (request logs,
// metrics and the live dashboard hang off it). The entry carries no
// Request or Response: read those through Query.
type Observer func(Entry)

// observers is the journal's list of observers, set before traffic.
type observers struct {
	mu  sync.RWMutex
	fns []Observer
}

// Observe adds fn to the observers of stored entries. Entries dropped
// because the queue was full are never observed, so whatever counts
// through an observer agrees with what the journal holds.
func (j *Journal) Observe(fn Observer) {
	j.obs.mu.Lock()
	j.obs.fns = append(j.obs.fns, fn)
	j.obs.mu.Unlock()
}

// Stored is how many entries the journal holds now (pending ones aside).
func (j *Journal) Stored() (int, error) { return j.store.count() }

// notify tells the observers of the records just committed.
func (j *Journal) notify(rs []*record) {
	j.obs.mu.RLock()
	fns := j.obs.fns
	j.obs.mu.RUnlock()
	if len(fns) == 0 {
		return
	}
	for _, r := range rs {
		e := r.summary()
		for _, fn := range fns {
			fn(e)
		}
	}
}

// summary is the entry of r without its messages (its outcome read from
// the answer).
func (r *record) summary() Entry {
	var facts *outcome.Facts
	if r.hasFacts {
		facts = &r.facts
	}
	kind, code := outcome.Of(outcome.Exchange{Webhook: r.Kind == KindWebhook, Status: r.Status, Reason: r.Reason,
		Fault: r.Fault, Err: r.Error, Dropped: r.Dropped, ClientGone: r.ClientGone, Body: r.ResBody}, facts)
	return Entry{Outcome: kind, ErrorCode: code,
		Seq: r.Seq, Kind: r.Kind, At: r.At, LatencyMs: float64(r.LatencyUs) / 1000,
		Listener: r.Listener, Host: r.Host, Endpoint: r.Endpoint, Method: r.Method, Path: r.Path, Query: r.Query,
		Channel: r.Channel, ChannelID: r.ChannelID, VirtualID: r.VirtualID, Status: r.Status,
		Reason: r.Reason, Fault: r.Fault, Limit: limitOf(r.Limit), ClientGone: r.ClientGone, Dropped: r.Dropped, Unadmitted: r.Unadmitted, Error: r.Error,
	}
}
