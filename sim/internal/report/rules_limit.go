package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
)

// limitKey is whose call a limit refused: the channel, the endpoint and
// the user (a retry is the same user's next call of the endpoint).
func limitKey(e *journal.Entry) string {
	return e.Channel + "\x00" + e.Endpoint + "\x00" + e.VirtualID
}

// limitedCall is a call a capacity limit refused, awaiting its retry.
type limitedCall struct {
	e          *journal.Entry
	reason     string // what held it (in-flight, rate, queue)
	user       string
	retryAfter time.Duration // 0: the refusal said none
}

// limitRetry is CAP-1: the call after a refusal by the channel's
// capacity limit, of the same channel, endpoint and user, is its retry;
// sent sooner than the refusal's Retry-After, it did not honour it. The
// times are the journal's (simulated); under a frozen clock two calls
// share one time and are not judged.
func (f *fold) limitRetry(e *journal.Entry) {
	if e.Kind != journal.KindExchange || e.Endpoint == "" {
		return
	}
	k := limitKey(e)
	if prev, ok := f.limited[k]; ok {
		delete(f.limited, k)
		if gap := e.At.Sub(prev.e.At); prev.retryAfter > 0 && gap > 0 && gap < prev.retryAfter {
			f.c.add("limit-retry-after-ignored", e, fmt.Sprintf("%s was refused by the channel's limit with Retry-After %s; the retry came %s later", e.Endpoint, prev.retryAfter, gap.Round(time.Millisecond)))
		}
	}
	if e.Limit != nil && e.Limit.Refused {
		secs, _ := strconv.Atoi(e.Response.Header["Retry-After"])
		f.limited[k] = limitedCall{slim(e), e.Limit.Reason, e.VirtualID, time.Duration(secs) * time.Second}
	}
}

// limitNotRetried is CAP-1 at the end: refusals by a capacity limit the
// same user never called the endpoint again after, in journal order.
func (f *fold) limitNotRetried() {
	left := make([]limitedCall, 0, len(f.limited))
	for _, l := range f.limited {
		left = append(left, l)
	}
	slices.SortFunc(left, func(a, b limitedCall) int { return cmp.Compare(a.e.Seq, b.e.Seq) })
	for _, l := range left {
		f.c.add("limit-refusal-not-retried", l.e, fmt.Sprintf("%s of user %q was refused by the channel's limit (%s) and never sent again", l.e.Endpoint, l.user, l.reason))
	}
}
