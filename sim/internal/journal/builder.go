package journal

import (
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/outcome"
	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

// Builder turns exchanges into entries: it masks secrets, finds the
// operation and the injected fault; whom the call was for comes with the
// exchange (Exchange.Channel), as its way in found it. It is not safe for
// concurrent use.
type Builder struct {
	// fresh are the masks learnt since the journal last stored them.
	fresh []secrets.Mask
	// masked memoizes the masking of secret header values.
	masked *secrets.HeaderMemo
	// learned learns into the journal's memory, skipping a body learnt
	// from lately.
	learned *secrets.Memo[outcome.Facts]
}

// NewBuilder returns an empty builder that learns what to mask into mem.
func NewBuilder(mem *secrets.Memory) *Builder {
	return &Builder{masked: secrets.NewHeaderMemo(), learned: secrets.NewMemo[outcome.Facts](mem)}
}

// Build makes the entry of x (Seq is left 0).
func (b *Builder) Build(x *Exchange) *Entry {
	e := b.record(x).entry()
	b.fresh = b.fresh[:0] // only a journal stores them
	return &e
}

// record is the write-time half of Build: masking and the facts.
func (b *Builder) record(x *Exchange) *record {
	if x.reqPairs == nil && x.resPairs == nil {
		// An exchange made elsewhere (the record proxy's) carries
		// http.Headers; the middleware's carries pairs.
		x.reqPairs, x.resPairs = pairsOf(x.RequestHeader), pairsOf(x.ResponseHeader)
	}
	r := &record{
		Kind: KindExchange, At: x.At, LatencyUs: x.Latency.Microseconds(), Listener: x.Listener,
		Method: x.Method, Path: x.Path, Query: x.Query, Status: x.Status, ClientGone: x.ClientGone,
		Channel: x.Channel, ChannelID: x.ChannelID, VirtualID: x.VirtualID,
		reqHeader: x.reqPairs.maskedPairs(b.masked), resHeader: x.resPairs.maskedPairs(b.masked),
		ReqBody: x.RequestBody, ResBody: x.ResponseBody, ReqTrunc: x.RequestTrunc, ResTrunc: x.ResTrunc,
	}
	if op, ok := contract.ByPath(x.Method, x.Path); ok {
		r.Endpoint, r.Host = op.Name, string(op.Host)
	}
	r.Reason = x.resPairs.get(httpx.ReasonHeader)
	r.Limit = x.resPairs.get(httpx.LimitHeader)
	r.Fault, r.Dropped, r.Unadmitted = x.Fault, x.Dropped, x.Unadmitted
	if f, ok := strings.CutPrefix(r.Reason, FaultPrefix); ok && r.Fault == "" {
		r.Fault = f
	}
	var bdata secrets.Decoded // each body's BDATA decoded once for both
	var slot *secrets.Slot[outcome.Facts]
	b.fresh, slot, r.resHash = b.learned.Learn(x.ResponseBody, &bdata, b.fresh)
	if slot != nil {
		if !slot.HasFacts {
			slot.Facts, slot.HasFacts = outcome.Read(x.ResponseBody), true
		}
		r.facts, r.hasFacts = slot.Facts, true
	}
	b.fresh, _, _ = b.learned.Learn(x.RequestBody, &bdata, b.fresh)
	return r
}
