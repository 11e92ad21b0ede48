// Package journal keeps a bounded log of every exchange on every public
// host and every outbound webhook attempt (SIM-4), for the control API,
// recording export and the conformance report.
//
// The hot path only copies what it saw into a bounded queue (whom a call
// was for comes from the way in's note, httpx.Outcome: the journal reads
// no request); a background writer masks secrets, stamps each entry on
// its channel's clock (Options.Clock, passed by the composition root),
// encodes, and appends batches to bbolt in one transaction each, pruning to the bound
// (count and/or age) in that same transaction. Close flushes the queue.
// The journal is diagnostics, not service state: on kill -9 the last few
// milliseconds of entries may be lost, and when the queue is full an entry
// is dropped (and counted) rather than slowing the publisher down.
package journal

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/boltfile"
	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

// Defaults of Options.
const (
	DefaultMaxEntries = 100_000
	DefaultQueue      = 8192
	// DefaultMaxBytes bounds the stored journal (docs/security.md): at
	// 64 KiB per body kept, about 500 of the largest exchanges, or some
	// 50,000 typical ones.
	DefaultMaxBytes = 64 << 20
	// A commit is due at maxBatch entries or batchWindow after the first,
	// whichever comes first; batchWindow is also the most a kill -9 can
	// lose beyond what is queued. A commit costs about the same for a
	// few entries as for a hundred: at a signed endpoint's 4,000 calls a
	// second, a 5 ms window made commits of 20 and cost the calls about
	// 2% of their CPU (issue 25). The cap keeps a fast endpoint's batches
	// about as they were: a listing's 20 ms, some 500 entries under the
	// old cap of 1024, cost it 15% more CPU (not looked into further).
	maxBatch    = 128
	batchWindow = 20 * time.Millisecond
)

// Options bound and tune a journal.
type Options struct {
	// MaxEntries keeps at most this many entries (oldest dropped first);
	// 0 means DefaultMaxEntries, negative means no count bound.
	MaxEntries int
	// MaxAge drops entries older than this, in simulated time; 0 means no
	// age bound.
	MaxAge time.Duration
	// MaxBytes bounds the stored journal in bytes (oldest dropped first);
	// 0 means DefaultMaxBytes, negative means no byte bound.
	MaxBytes int64
	// Queue is the capacity of the hand-off queue; 0 means DefaultQueue.
	Queue int
	// Clock stamps entries (simulated time), a channel with a clock of
	// its own on that clock; Wall measures latency.
	Clock  clock.PerChannel
	Wall   clock.Clock
	Logger *slog.Logger
	// Disabled turns the journal off: nothing is recorded.
	Disabled bool
	// Secrets is what the journal learns to mask by value, and masks
	// with (nil: a memory of its own). The hall hands the same memory
	// to the domain, which tells it the secKeys it knows.
	Secrets *secrets.Memory
}

// Journal is the bounded log. It is safe for concurrent use.
type Journal struct {
	opts        Options
	store       *store
	queue       chan item
	done        chan struct{}
	dropped     atomic.Uint64
	queuedBytes atomic.Int64  // bytes of the bodies waiting in queue
	skipped     atomic.Uint64 // stored records readers could not decode
	emptied     atomic.Bool   // Reset emptied the store since the writer's last commit
	freed       atomic.Int64  // bytes ResetChannel deleted since the writer's last commit
	closeMu     sync.RWMutex
	closed      bool
	// next numbers entries: an exchange as it arrives (so its answer can
	// carry its number), a webhook attempt as it is handed over.
	next     atomic.Uint64
	answered answered
	size     int64    // stored bytes; writer goroutine only (and Reset, after a flush)
	builder  *Builder // writer goroutine only
	obs      observers
	taken    []*record       // writer goroutine only: the batch, for the observers
	lent     []*bytes.Buffer // writer goroutine only: the batch's answer copies (Exchange.resCopy)
	// chunk holds the encoded records of the batch (writer goroutine
	// only): one allocation for many records, used again once they are
	// committed (bbolt holds a value only until its transaction ends).
	chunk []byte
	// used are the batch's other chunks, filled before chunk; spare are
	// chunks committed, to be used again (writer goroutine only): a batch
	// of 3 KB listings filled a dozen chunks, each new and cleared (issue 25).
	used, spare [][]byte
}

// maxSpare is how many committed chunks the writer keeps for later
// batches.
const maxSpare = 4

// chunkSize is the size of a chunk of encoded records.
const chunkSize = 256 << 10

// item is what the hot path hands to the writer: a raw exchange, or a
// flush marker.
type item struct {
	raw   *Exchange
	rec   *record
	flush chan struct{}
}

// Exchange is one request and its answer as seen on the wire.
type Exchange struct {
	At                  time.Time
	Latency             time.Duration
	Listener            string
	Method, Path, Query string
	RequestHeader       http.Header
	ResponseHeader      http.Header
	// reqPairs and resPairs are the middleware's copies of the headers
	// (used when set): one allocation each, where Header.Clone made
	// four or five on the request goroutine (issue 25).
	reqPairs, resPairs headerPairs
	// Channel, ChannelID and VirtualID are whom the call was for, as its
	// way in found them (httpx.Outcome; the record proxy reads them from
	// the request): the journal does not read requests.
	Channel, ChannelID, VirtualID string
	RequestBody                   []byte
	ResponseBody                  []byte
	// resCopy holds ResponseBody, the recorder's copy (answerCopies), nil:
	// none; the writer puts it back once the exchange is stored and
	// observed.
	resCopy                *bytes.Buffer
	RequestTrunc, ResTrunc bool
	Status                 int
	ClientGone             bool
	// Fault is the injected fault that fired (the handler's note);
	// Dropped: the connection was closed unanswered on purpose.
	Fault   string
	Dropped bool
	// Unadmitted: refused before any credentials admitted it (httpx.Outcome).
	Unadmitted bool
	// Seq is the number the exchange got as it arrived (SeqHeader); 0:
	// numbered when stored.
	Seq uint64
	// WallAt is when it arrived on the wall clock (stamp).
	WallAt time.Time
}

// stamp is the time an exchange arrived on its channel's clock: a
// channel with a clock of its own has its entries stamped on it (the
// way in knows the channel only after the arrival was stamped, so the
// writer moves it back by the wall time since).
func (j *Journal) stamp(channel string, x *Exchange) time.Time {
	if x.WallAt.IsZero() {
		return x.At
	}
	own, ok := j.opts.Clock.OwnClock(channel)
	if !ok {
		return x.At
	}
	return own.Now().Add(-j.opts.Wall.Now().Sub(x.WallAt))
}

// Open starts a journal over its file in dir (StoreFile).
func Open(dir string, opts Options) (*Journal, error) {
	f, err := OpenFile(dir)
	if err != nil {
		return nil, err
	}
	return f.Start(opts)
}

// File is a journal's file opened before its journal starts: the
// simulator opens it while it opens the state file, since a new file
// waits on the disk (bbolt syncs its first pages) and the two waits
// overlap (issue 56).
type File struct{ st *store }

// OpenFile opens (creating if needed) the journal's file in dir.
func OpenFile(dir string) (*File, error) {
	st, err := openStore(dir)
	if err != nil {
		return nil, err
	}
	return &File{st: st}, nil
}

// Start starts the journal over the file, which it then owns; on error
// the file is closed.
func (f *File) Start(opts Options) (*Journal, error) {
	j, err := openOver(f.st, opts)
	if err != nil {
		_ = f.st.close()
	}
	return j, err
}

// Close closes a file no journal was started over.
func (f *File) Close() error { return f.st.close() }

// openOver starts a journal over an open store.
func openOver(store *store, opts Options) (*Journal, error) {
	if opts.MaxEntries == 0 {
		opts.MaxEntries = DefaultMaxEntries
	}
	if opts.MaxBytes == 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Queue <= 0 {
		opts.Queue = DefaultQueue
	}
	if opts.Clock == nil {
		opts.Clock = clock.One{Clock: clock.Real{}}
	}
	if opts.Wall == nil {
		opts.Wall = clock.Real{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	last, err := store.lastSeq()
	if err != nil {
		return nil, err
	}
	size, err := store.bytes()
	if err != nil {
		return nil, err
	}
	if opts.Secrets == nil {
		opts.Secrets = secrets.New()
	}
	// What earlier runs learnt to mask is masked again from the start.
	var masks []secrets.Mask
	if err := store.masks(func(m storedMask) {
		masks = append(masks, secrets.Mask{Kind: secrets.MaskKind(m.Kind), Hash: m.Hash, Len: int(m.Len)})
	}); err != nil {
		return nil, err
	}
	opts.Secrets.Remember(masks)
	j := &Journal{opts: opts, store: store, queue: make(chan item, opts.Queue), done: make(chan struct{}), size: size, builder: NewBuilder(opts.Secrets)}
	j.next.Store(last)
	go j.write()
	return j, nil
}

// Secrets is the journal's memory of what to mask: every artefact read
// from the journal masks through it (Entry.Masked).
func (j *Journal) Secrets() *secrets.Memory { return j.opts.Secrets }

// enqueue hands an item to the writer without blocking; a full queue
// drops it and counts the drop.
func (j *Journal) enqueue(it item) {
	j.closeMu.RLock()
	defer j.closeMu.RUnlock()
	if j.closed || j.opts.Disabled {
		return
	}
	n := it.bytes()
	// The queue is bounded in bytes too: 8,192 entries of 64 KiB bodies
	// were half a gigabyte under a flood of large POSTs (issue 23).
	if j.queuedBytes.Add(n) > maxQueuedBytes {
		j.queuedBytes.Add(-n)
		j.dropped.Add(1)
		return
	}
	select {
	case j.queue <- it:
	default:
		j.queuedBytes.Add(-n)
		j.dropped.Add(1)
	}
}

// maxQueuedBytes bounds the bodies waiting for the writer.
const maxQueuedBytes = 16 << 20

func (it item) bytes() int64 {
	switch {
	case it.raw != nil:
		return int64(len(it.raw.RequestBody) + len(it.raw.ResponseBody))
	case it.rec != nil:
		return int64(len(it.rec.ReqBody) + len(it.rec.ResBody))
	}
	return 0
}

// Dropped is how many entries were dropped because the queue was full.
func (j *Journal) Dropped() uint64 { return j.dropped.Load() }

// Skipped is how many stored records readers skipped because they could
// not decode them.
func (j *Journal) Skipped() uint64 { return j.skipped.Load() }

// Flush waits until everything enqueued before it is stored.
func (j *Journal) Flush(ctx context.Context) error {
	j.closeMu.RLock()
	if j.closed {
		j.closeMu.RUnlock()
		return nil
	}
	done := make(chan struct{})
	select {
	case j.queue <- item{flush: done}:
	case <-ctx.Done():
		j.closeMu.RUnlock()
		return ctx.Err()
	}
	j.closeMu.RUnlock()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stores what is queued, stops the writer and closes the file.
func (j *Journal) Close() error {
	j.closeMu.Lock()
	if j.closed {
		j.closeMu.Unlock()
		return nil
	}
	j.closed = true
	close(j.queue)
	j.closeMu.Unlock()
	<-j.done
	return j.store.close()
}

// RecordWebhook journals one outbound webhook attempt (WH-2). The
// webhook package calls it after each attempt.
func (j *Journal) RecordWebhook(a WebhookAttempt) {
	r := &record{
		Kind: KindWebhook, At: a.At, LatencyUs: a.Latency.Microseconds(), Method: http.MethodPost, Path: a.URL,
		Channel: a.Channel, Status: a.Status, Error: a.Err,
		ReqHeader: secrets.MaskHeader(a.RequestHeader), ResHeader: secrets.MaskHeader(a.ResponseHeader),
		ReqBody: a.RequestBody, ResBody: a.ResponseBody,
	}
	// Numbered as it is handed over, like an answer as it starts, so the
	// journal's order is the order things happened.
	r.Seq = j.next.Add(1)
	j.enqueue(item{rec: r})
}

// WebhookAttempt is one delivery attempt of a webhook push.
type WebhookAttempt struct {
	At             time.Time
	URL, Channel   string
	RequestHeader  http.Header
	RequestBody    []byte
	Status         int // 0 when no answer came
	ResponseHeader http.Header
	ResponseBody   []byte
	Latency        time.Duration
	Err            string
}

// write is the background writer. It gathers entries for up to
// batchWindow (or maxBatch entries, or until someone flushes) and stores
// them in one transaction: one fsync per batch, not per request.
func (j *Journal) write() {
	defer close(j.done)
	var batch []storedRecord
	var waiters []chan struct{}
	timer := time.NewTimer(batchWindow)
	timer.Stop()
	for it := range j.queue {
		batch, waiters = j.take(it, batch, waiters)
		timer.Reset(batchWindow)
	gather:
		for len(batch) < maxBatch && len(waiters) == 0 {
			select {
			case it, ok := <-j.queue:
				if !ok {
					break gather
				}
				batch, waiters = j.take(it, batch, waiters)
			case <-timer.C:
				break gather
			}
		}
		timer.Stop()
		j.commit(batch)
		j.chunk = j.chunk[:0] // committed: its records are no one's now
		for _, c := range j.used {
			if len(j.spare) < maxSpare && cap(c) == chunkSize {
				j.spare = append(j.spare, c[:0])
			}
		}
		clear(j.used)
		j.used = j.used[:0]
		j.notify(j.taken)
		for _, b := range j.lent { // the batch's records no longer read them
			releaseCopy(b)
		}
		clear(j.lent)
		j.lent = j.lent[:0]
		clear(j.taken)
		batch, j.taken = batch[:0], j.taken[:0]
		for _, w := range waiters {
			close(w)
		}
		waiters = waiters[:0]
	}
}

func (j *Journal) take(it item, batch []storedRecord, waiters []chan struct{}) ([]storedRecord, []chan struct{}) {
	if it.flush != nil {
		return batch, append(waiters, it.flush)
	}
	j.queuedBytes.Add(-it.bytes())
	r := it.rec
	if it.raw != nil {
		r = j.builder.record(it.raw)
		r.Seq = it.raw.Seq
		r.At = j.stamp(r.Channel, it.raw)
		if it.raw.resCopy != nil {
			j.lent = append(j.lent, it.raw.resCopy)
		}
	}
	if r.Seq == 0 {
		r.Seq = j.next.Add(1)
	}
	j.taken = append(j.taken, r)
	data := j.encode(r)
	// The answer's body ends the record: a listing polled again and again
	// stores it once a batch (storedRecord.Shared).
	return append(batch, storedRecord{Seq: r.Seq, At: r.At, Data: data, Shared: r.resBodyLen(), SharedHash: r.resHash}), waiters
}

// encode appends r, framed for the store, to the chunk.
func (j *Journal) encode(r *record) []byte {
	need := storeFrame + r.binarySize()
	if cap(j.chunk)-len(j.chunk) < need {
		if j.chunk != nil {
			j.used = append(j.used, j.chunk)
		}
		if n := len(j.spare); n > 0 && need <= chunkSize {
			j.chunk, j.spare = j.spare[n-1], j.spare[:n-1]
		} else {
			j.chunk = make([]byte, 0, max(need, chunkSize))
		}
	}
	at := len(j.chunk)
	data := r.appendBinary(j.chunk[at : at+storeFrame : at+need])
	j.chunk = j.chunk[:at+len(data)]
	return data
}

func (j *Journal) commit(batch []storedRecord) {
	if len(batch) == 0 {
		return
	}
	var notBefore time.Time
	if j.opts.MaxAge > 0 {
		notBefore = j.opts.Clock.Now().Add(-j.opts.MaxAge)
	}
	masks := make([]storedMask, len(j.builder.fresh))
	for i, m := range j.builder.fresh {
		masks[i] = storedMask{Kind: uint8(m.Kind), Hash: m.Hash, Len: uint16(m.Len)}
	}
	j.builder.fresh = j.builder.fresh[:0]
	if j.emptied.Swap(false) {
		j.size = 0 // an over-count at worst: the next trim corrects it
	}
	j.size -= j.freed.Swap(0)
	size, err := j.store.write(storeBatch{
		Records: batch, MaxEntries: j.opts.MaxEntries, NotBefore: notBefore,
		Size: j.size, MaxBytes: j.opts.MaxBytes, Masks: masks, MaxMasks: secrets.MaxMasks,
	})
	if err != nil {
		j.opts.Logger.Error("journal: append", "err", err, "entries", len(batch))
		return
	}
	j.size = size
}

// Written is what the journal's file has written since Open (for `make
// load`'s pages per exchange; served under --debug-pprof).
func (j *Journal) Written() boltfile.Written { return boltfile.WrittenBy(j.store.db) }
