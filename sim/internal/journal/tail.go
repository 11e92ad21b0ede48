package journal

import "context"

// Tail is the page of the newest n entries (oldest first), read without
// touching older ones: sequence numbers are consecutive, so the page
// starts at a known key. Stored and Dropped are as for Query.
func (j *Journal) Tail(ctx context.Context, n int) (Page, error) {
	if err := j.Flush(ctx); err != nil {
		return Page{}, err
	}
	last, err := j.store.lastSeq()
	if err != nil {
		return Page{}, err
	}
	var after uint64
	if last > uint64(n) {
		after = last - uint64(n)
	}
	return j.Query(ctx, Filter{After: after})
}
