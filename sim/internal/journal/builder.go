package journal

import (
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

// Builder turns exchanges into entries: it masks secrets, finds the
// operation, the injected fault, the channel and the user. It remembers
// which channel and user each handed-out token belongs to, so a later
// bearer call without a body (the listing) is still attributed; it is
// not safe for concurrent use.
type Builder struct {
	// creds maps a handed-out credential's hash to its owner.
	creds secrets.OldestFirst[uint64, ident]
	// fresh are the masks learnt since the journal last stored them.
	fresh []secrets.Mask
	// masked memoizes the masking of secret header values.
	masked *secrets.HeaderMemo
	// learned learns into the journal's memory, skipping a body learnt
	// from lately.
	learned *secrets.Memo[answerFacts]
}

type ident struct{ channel, channelID, virtualID string }

// NewBuilder returns an empty builder that learns what to mask into mem.
func NewBuilder(mem *secrets.Memory) *Builder {
	return &Builder{creds: secrets.OldestFirst[uint64, ident]{Max: maxCreds}, masked: secrets.NewHeaderMemo(), learned: secrets.NewMemo[answerFacts](mem)}
}

// maxCreds bounds the owners remembered: they serve the CHANNELID of a
// bearer call and the owner of a token the bearer check refused (an
// admitted token's owner comes from the check itself). It was 50,000
// fingerprint strings, cleared all at once, and 5.5 MB of a heap under
// the then 40 MiB memory limit.
const maxCreds = 1 << 13

// Build makes the entry of x (Seq is left 0).
func (b *Builder) Build(x *Exchange) *Entry {
	e := b.record(x).entry()
	b.fresh = b.fresh[:0] // only a journal stores them
	return &e
}

// record is the write-time half of Build: identity and masking only.
func (b *Builder) record(x *Exchange) *record {
	if x.reqPairs == nil && x.resPairs == nil {
		// An exchange made elsewhere (the record proxy's) carries
		// http.Headers; the middleware's carries pairs.
		x.reqPairs, x.resPairs = pairsOf(x.RequestHeader), pairsOf(x.ResponseHeader)
	}
	r := &record{
		Kind: KindExchange, At: x.At, LatencyUs: x.Latency.Microseconds(), Listener: x.Listener,
		Method: x.Method, Path: x.Path, Query: x.Query, Status: x.Status, ClientGone: x.ClientGone,
		reqHeader: x.reqPairs.maskedPairs(b.masked), resHeader: x.resPairs.maskedPairs(b.masked),
		ReqBody: x.RequestBody, ResBody: x.ResponseBody, ReqTrunc: x.RequestTrunc, ResTrunc: x.ResTrunc,
	}
	if op, ok := contract.ByPath(x.Method, x.Path); ok {
		r.Endpoint, r.Host = op.Name, string(op.Host)
	}
	r.Reason = x.resPairs.get(httpx.ReasonHeader)
	r.Fault, r.Dropped = x.Fault, x.Dropped
	if f, ok := strings.CutPrefix(r.Reason, FaultPrefix); ok && r.Fault == "" {
		r.Fault = f
	}
	var bdata secrets.Decoded // each body's BDATA decoded once for all below
	var slot *secrets.Slot[answerFacts]
	b.fresh, slot, r.resHash = b.learned.Learn(x.ResponseBody, &bdata, b.fresh)
	if slot != nil {
		if !slot.HasFacts {
			slot.Facts, slot.HasFacts = factsOf(x.ResponseBody, &bdata), true
		}
		r.facts, r.hasFacts = slot.Facts, true
	}
	b.fresh, _, _ = b.learned.Learn(x.RequestBody, &bdata, b.fresh)
	r.Channel, r.ChannelID, r.VirtualID = requestIdentity(x.reqPairs.get("X-Channelid"), x.RequestBody, &bdata)
	b.link(r, x, &bdata)
	return r
}

// link attributes a bearer call to the owner of its token, and remembers
// the owners of the tokens an answer hands out.
func (b *Builder) link(r *record, x *Exchange, bdata *secrets.Decoded) {
	if v := bearerOf(x); v != "" {
		id, known := b.creds.Get(secrets.HashOf(v))
		if x.ownerChannel != "" {
			// The bearer check resolved the token: its owner is exact,
			// whatever the bounded memory below still holds.
			if !known || id.channel != x.ownerChannel {
				id.channelID = ""
			}
			id.channel, id.virtualID, known = x.ownerChannel, x.ownerVirtualID, true
		}
		if known {
			if r.Channel == "" {
				r.Channel, r.ChannelID = id.channel, id.channelID
			}
			if r.VirtualID == "" {
				r.VirtualID = id.virtualID
			}
		}
	}
	if r.Channel == "" {
		return
	}
	handed := r.facts.handedOut
	if !r.hasFacts {
		handed = handedOut(x.ResponseBody, bdata)
	}
	for _, v := range handed {
		b.creds.Put(secrets.HashOf(v), ident{r.Channel, r.ChannelID, r.VirtualID})
	}
}

// bearerOf is the credential of the exchange's Authorization header.
func bearerOf(x *Exchange) string {
	_, v, _ := strings.Cut(x.reqPairs.get("Authorization"), " ")
	return strings.TrimSpace(v)
}
