package journal

import (
	"context"
	"math"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/match"
)

// Filter selects entries. Zero fields match everything.
type Filter struct {
	// Channel matches the channel name or the CHANNELID.
	Channel   string
	VirtualID string
	// Endpoint matches the operation name or the path.
	Endpoint string
	Kind     string
	// From and To bound the entry time (From inclusive, To exclusive).
	From, To time.Time
	// After returns only entries with a larger sequence number (paging).
	After uint64
	// Limit caps the page; 0 means no cap.
	Limit int
	// Where selects by the request's fields (match.Doc).
	Where match.Where
}

// Match reports whether e passes f (After and Limit aside).
func (f Filter) Match(e *Entry) bool {
	return f.match(&record{Kind: e.Kind, At: e.At, Channel: e.Channel, ChannelID: e.ChannelID, VirtualID: e.VirtualID, Endpoint: e.Endpoint, Path: e.Path})
}

func (f Filter) match(r *record) bool {
	switch {
	case f.Channel != "" && r.Channel != f.Channel && r.ChannelID != f.Channel:
		return false
	case f.VirtualID != "" && r.VirtualID != f.VirtualID:
		return false
	case f.Endpoint != "" && r.Endpoint != f.Endpoint && r.Path != f.Endpoint:
		return false
	case f.Kind != "" && r.Kind != f.Kind:
		return false
	case !f.From.IsZero() && r.At.Before(f.From):
		return false
	case !f.To.IsZero() && !r.At.Before(f.To):
		return false
	}
	return true
}

// Page is one page of a query.
type Page struct {
	Entries []Entry `json:"entries"`
	// Next is the After of the following page; 0 when this is the last.
	Next uint64 `json:"next,omitempty"`
	// Stored is how many entries the journal holds; Dropped how many were
	// dropped since start because the queue was full.
	Stored  int    `json:"stored"`
	Dropped uint64 `json:"dropped"`
}

// scanPage is how many records one read transaction of Query visits, at
// most scanPageBytes of them: the page a reader holds at a time.
const (
	scanPage      = 512
	scanPageBytes = 4 << 20
)

// Query flushes pending entries, then returns the page f selects.
func (j *Journal) Query(ctx context.Context, f Filter) (Page, error) {
	if err := j.Flush(ctx); err != nil {
		return Page{}, err
	}
	p := Page{Entries: []Entry{}, Dropped: j.Dropped()}
	var err error
	if p.Stored, err = j.store.count(); err != nil {
		return p, err
	}
	held := 0
	err = j.scan(ctx, f, func(e Entry) bool {
		if f.Limit > 0 && len(p.Entries) == f.Limit || held >= maxPageBytes {
			p.Next = p.Entries[len(p.Entries)-1].Seq
			return false
		}
		p.Entries = append(p.Entries, e)
		held += e.bodyBytes()
		return true
	})
	return p, err
}

// maxPageBytes bounds the bodies one Query page holds: 1,000 entries of
// 64 KiB bodies were 128 MiB in one answer (issue 23). A page ends early
// beyond it, with Next set, so a reader that follows Next sees them all.
const maxPageBytes = 8 << 20

func (e Entry) bodyBytes() int {
	return len(e.Request.Body) + len(e.Request.BDATA) + len(e.Request.Text) +
		len(e.Response.Body) + len(e.Response.BDATA) + len(e.Response.Text)
}

// Scan flushes pending entries, then calls fn with every entry f selects
// in journal order (Limit aside) until fn returns false. Only one page
// of records is decoded at a time: a reader that keeps only what it
// needs of each entry (the report's rules, the diagram's last calls) is
// bounded by that, not by the journal.
func (j *Journal) Scan(ctx context.Context, f Filter, fn func(Entry) bool) error {
	if err := j.Flush(ctx); err != nil {
		return err
	}
	return j.scan(ctx, f, fn)
}

func (j *Journal) scan(ctx context.Context, f Filter, fn func(Entry) bool) error {
	if f.After == math.MaxUint64 { // nothing can come after the last possible number
		return nil
	}
	// The scan runs in pages, each its own short read transaction: a
	// long one (an export of the whole journal) kept bbolt from reusing
	// the pages the writer frees, and journal.db grew past twice its
	// bound (issue 23: 193 MiB at 64 MiB).
	from, done := f.After+1, false
	var err error
	for !done && err == nil {
		if err = ctx.Err(); err != nil {
			break
		}
		// The page is copied out and the transaction ended before fn
		// sees any of it: a reader that takes its time over each entry
		// (an export masking 64 KiB bodies) would otherwise hold the
		// transaction for seconds, and journal.db grew past twice its
		// bound again under a flood of large bodies.
		var page []storedRecord
		size, more := 0, false
		err = j.store.scan(from, func(r storedRecord) bool {
			if len(page) == scanPage || size >= scanPageBytes {
				more = true
				return false
			}
			page, size = append(page, r), size+len(r.Data)
			return true
		})
		done = !more
		for i := 0; i < len(page) && err == nil; i++ {
			r := page[i]
			page[i], from = storedRecord{}, r.Seq+1 // garbage once read
			if !j.visit(f, r, fn) {
				done = true
				break
			}
		}
	}
	return err
}

// visit decodes r and calls fn with it if f selects it; false when fn
// asks to stop.
func (j *Journal) visit(f Filter, r storedRecord, fn func(Entry) bool) bool {
	var rec record
	if rec.unmarshalBinary(r.Data) != nil {
		// A record this build cannot decode (corrupt, or written by
		// another codec version) is skipped, not fatal to every reader.
		j.skipped.Add(1)
		return true
	}
	if !f.match(&rec) {
		return true
	}
	e := rec.entry()
	if len(f.Where) > 0 {
		if failed, _ := f.Where.Fails(match.Doc(e.Request.BDATA, e.Request.Body, e.Query)); failed != "" {
			return true
		}
	}
	return fn(e)
}

// Entries returns every stored entry f selects (Limit and After apply).
func (j *Journal) Entries(ctx context.Context, f Filter) ([]Entry, error) {
	p, err := j.Query(ctx, f)
	return p.Entries, err
}

// Reset drops every entry.
func (j *Journal) Reset(ctx context.Context) error {
	if err := j.Flush(ctx); err != nil {
		return err
	}
	if err := j.store.reset(); err != nil {
		return err
	}
	j.emptied.Store(true) // the writer zeroes its byte count
	return nil
}

// ResetChannel drops the entries of one channel (by name or CHANNELID);
// the other channels' stay.
func (j *Journal) ResetChannel(ctx context.Context, channel string) error {
	if err := j.Flush(ctx); err != nil {
		return err
	}
	f := Filter{Channel: channel}
	freed, err := j.store.deleteWhere(func(data []byte) bool {
		var rec record
		return rec.unmarshalBinary(data) == nil && f.match(&rec)
	})
	j.freed.Add(freed) // the writer takes it off its byte count
	return err
}
