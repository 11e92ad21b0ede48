package journal

import (
	"context"
	"strings"
	"testing"
	"time"
)

// 64 KiB bodies no longer grow the journal past its byte bound: the
// oldest entries go, the newest stay, across a restart too.
func TestJournal_byteBoundHolds(t *testing.T) {
	const maxBytes = 1 << 20
	j, st, e := open(t, Options{MaxBytes: maxBytes, MaxEntries: -1})
	big := `{"pad":"` + strings.Repeat("x", MaxBodyKept) + `"}`
	for range 200 { // about 25 MiB of requests and echoed answers
		serve(e, "/api/GetReward", big, nil)
	}
	ctx := context.Background()
	if err := j.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	size, err := st.bytes()
	if err != nil {
		t.Fatal(err)
	}
	if size > maxBytes || size == 0 {
		t.Fatalf("journal holds %d bytes, want 1 to %d", size, maxBytes)
	}
	p, err := j.Query(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entries) == 0 || p.Entries[len(p.Entries)-1].Seq != 200 {
		t.Fatalf("kept %d entries, want the newest (seq 200) among them", len(p.Entries))
	}
	// After a reset the count starts again from nothing.
	if err := j.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	serve(e, "/api/GetReward", `{}`, nil)
	if p, _ := j.Query(ctx, Filter{}); len(p.Entries) != 1 {
		t.Fatalf("after a reset and one request: %d entries", len(p.Entries))
	}
}

// A stored record no reader can decode is skipped, not fatal.
func TestJournal_readersSkipUndecodableRecords(t *testing.T) {
	j, st, e := open(t, Options{})
	serve(e, "/api/GetAuthToken", `{"a":1}`, nil)
	ctx := context.Background()
	if err := j.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	last, _ := st.lastSeq()
	if err := st.appendRecords([]storedRecord{{Seq: last + 1, At: time.Now(), Data: framed([]byte{codecVersion, 0xff})}}, 0, time.Time{}); err != nil {
		t.Fatal(err)
	}
	j.next.Store(last + 1) // the writer is idle after the flush
	serve(e, "/api/GetAuthToken", `{"a":2}`, nil)
	p, err := j.Query(ctx, Filter{})
	if err != nil {
		t.Fatalf("a corrupt record broke the reader: %v", err)
	}
	if len(p.Entries) != 2 || j.Skipped() != 1 {
		t.Fatalf("read %d entries, skipped %d; want 2 and 1", len(p.Entries), j.Skipped())
	}
}

// A body nested deeper than MaxBodyDepth is kept as text.
func TestJournal_deepBodyKeptAsText(t *testing.T) {
	deep := strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000)
	m := message(nil, []byte(deep), false)
	if m.Body != nil || m.Text != deep {
		t.Fatalf("a 10,000-deep body was kept as JSON")
	}
	if m := message(nil, []byte(`{"a":[1,{"b":"[[[["}]}`), false); m.Body == nil {
		t.Fatalf("a shallow body (brackets in strings) was kept as text")
	}
}

// Tail reads the newest n entries only.
func TestJournal_tailReadsTheNewest(t *testing.T) {
	j, _, e := open(t, Options{})
	for range 30 {
		serve(e, "/api/GetAuthToken", `{}`, nil)
	}
	for _, c := range []struct{ n, want int }{{10, 10}, {30, 30}, {100, 30}} {
		p, err := j.Tail(context.Background(), c.n)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Entries) != c.want || p.Entries[len(p.Entries)-1].Seq != 30 || p.Stored != 30 {
			t.Fatalf("Tail(%d): %d entries ending at %d of %d stored", c.n, len(p.Entries), p.Entries[len(p.Entries)-1].Seq, p.Stored)
		}
	}
}

// appendRecords stores recs in one write transaction, then drops the
// oldest records beyond maxEntries (0: no count bound) and those older
// than notBefore (zero: no age bound).
func (s *store) appendRecords(recs []storedRecord, maxEntries int, notBefore time.Time) error {
	_, err := s.write(storeBatch{Records: recs, MaxEntries: maxEntries, NotBefore: notBefore})
	return err
}
