// Package verify answers a publisher's test: how many of a channel's
// exchanges, from a point on, had a request that passes a match.Where, and
// which came closest when too few or too many did.
package verify

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/match"
)

// Check is what a publisher's test asserts: how many exchanges of a
// channel and endpoint, from Since on, have a request passing Where.
// Nil bounds are not checked; with none, at least one is wanted.
type Check struct {
	Channel  string
	Endpoint string
	Where    match.Where
	Since    uint64
	Times    *int
	AtLeast  *int
	AtMost   *int
}

// Verdict is a check's answer.
type Verdict struct {
	OK         bool               `json:"ok"`
	Count      int                `json:"count"`
	Matches    []uint64           `json:"matches"`
	NearMisses []NearMiss         `json:"nearMisses"`
	Unsettled  *journal.Unsettled `json:"unsettled,omitempty"` // an exchange not counted
}

// NearMiss is an exchange of the channel that came close: how it fails.
type NearMiss struct {
	Seq      uint64    `json:"seq"`
	Endpoint string    `json:"endpoint"`
	At       time.Time `json:"at"`
	Status   int       `json:"status"`
	// Failed is the first predicate it fails, written out
	// (`/extTransactionId: want "T-2", got "T-1"`), or that its endpoint is another.
	Failed string `json:"failed"`
	passed int
}

// maxNearMisses bounds a verdict's near misses.
const maxNearMisses = 5

// Holds reports whether n satisfies the bounds.
func (c Check) Holds(n int) bool {
	switch {
	case c.Times != nil && n != *c.Times:
		return false
	case c.AtLeast != nil && n < *c.AtLeast:
		return false
	case c.AtMost != nil && n > *c.AtMost:
		return false
	case c.Times == nil && c.AtLeast == nil && c.AtMost == nil:
		return n >= 1
	}
	return true
}

// Verify waits until every exchange of the channel answered before the
// call is stored in j (Settle), then counts the channel's exchanges that
// pass c. An exchange refused before any credentials of the channel
// admitted it (journal.Entry.Unadmitted) is not counted: it is a near miss.
func Verify(ctx context.Context, j *journal.Journal, c Check) (Verdict, error) {
	var un *journal.Unsettled
	if err := j.Settle(ctx, c.Channel); err != nil && !errors.As(err, &un) {
		return Verdict{}, err
	}
	f := journal.Filter{Channel: c.Channel, Kind: journal.KindExchange}
	if c.Since > 0 {
		f.After = c.Since - 1
	}
	es, err := j.Entries(ctx, f)
	if err != nil {
		return Verdict{}, err
	}
	v := Verdict{Matches: []uint64{}, NearMisses: []NearMiss{}, Unsettled: un}
	var misses []NearMiss
	for i := range es {
		e := &es[i]
		same := c.Endpoint == "" || e.Endpoint == c.Endpoint || e.Path == c.Endpoint
		failed, passed := c.Where.Fails(match.Doc(e.Request.BDATA, e.Request.Body, e.Query))
		if e.Unadmitted && failed == "" {
			// Another's credentials naming the channel (a shared box's
			// other job) do not make the call the channel's (issue 50).
			failed = "not the channel's call: refused before its credentials admitted it (" + cmp.Or(e.Reason, "refused") + ")"
		}
		if same && failed == "" {
			v.Matches = append(v.Matches, e.Seq)
			continue
		}
		m := NearMiss{Seq: e.Seq, Endpoint: e.Endpoint, At: e.At, Status: e.Status, Failed: failed, passed: passed}
		if !same {
			m.Failed = "endpoint: want " + c.Endpoint + ", got " + cmp.Or(e.Endpoint, e.Path)
			m.passed = -1
		}
		misses = append(misses, m)
	}
	v.Count = len(v.Matches)
	v.OK = c.Holds(v.Count)
	if !v.OK {
		// Same endpoint first, then the most predicates passed, then the newest.
		slices.SortStableFunc(misses, func(a, b NearMiss) int {
			return cmp.Or(cmp.Compare(b.passed, a.passed), cmp.Compare(b.Seq, a.Seq))
		})
		v.NearMisses = append(v.NearMisses, misses[:min(len(misses), maxNearMisses)]...)
	}
	return v, nil
}
