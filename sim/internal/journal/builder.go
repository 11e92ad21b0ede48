package journal

import (
	"net/http"
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
)

// Builder turns exchanges into entries: it masks secrets, finds the
// operation, the injected fault, the channel and the user. It remembers
// which channel and user each handed-out token belongs to, so a later
// bearer call without a body (the listing) is still attributed; it is
// not safe for concurrent use.
type Builder struct {
	// creds maps a handed-out credential's hash to its owner; credOrder
	// forgets the oldest beyond maxCreds.
	creds     map[uint64]ident
	credOrder []uint64
	credNext  int
	// fresh are the masks learnt since the journal last stored them.
	fresh []Mask
}

type ident struct{ channel, channelID, virtualID string }

// NewBuilder returns an empty builder.
func NewBuilder() *Builder { return &Builder{creds: map[uint64]ident{}} }

// maxCreds bounds the owners remembered: they serve the CHANNELID of a
// bearer call and the owner of a token the bearer check refused (an
// admitted token's owner comes from the check itself). It was 50,000
// fingerprint strings, cleared all at once, and 5.5 MB of a heap under a
// 40 MiB limit.
const maxCreds = 1 << 13

// Build makes the entry of x (Seq is left 0).
func (b *Builder) Build(x *Exchange) *Entry {
	e := b.record(x).entry()
	b.fresh = b.fresh[:0] // only a journal stores them
	return &e
}

// record is the write-time half of Build: identity and masking only.
func (b *Builder) record(x *Exchange) *record {
	r := &record{
		Kind: KindExchange, At: x.At, LatencyUs: x.Latency.Microseconds(), Listener: x.Listener,
		Method: x.Method, Path: x.Path, Query: x.Query, Status: x.Status, ClientGone: x.ClientGone,
		ReqHeader: x.maskedRequestHeader(), ResHeader: x.maskedResponseHeader(),
		ReqBody: x.RequestBody, ResBody: x.ResponseBody, ReqTrunc: x.RequestTrunc, ResTrunc: x.ResTrunc,
	}
	if op, ok := contract.ByPath(x.Method, x.Path); ok {
		r.Endpoint, r.Host = op.Name, string(op.Host)
	}
	r.Reason = x.header(x.resPairs, x.ResponseHeader, httpx.ReasonHeader)
	r.Fault, r.Dropped = x.Fault, x.Dropped
	if f, ok := strings.CutPrefix(r.Reason, FaultPrefix); ok && r.Fault == "" {
		r.Fault = f
	}
	var l learner
	l.learnFrom(x.ResponseBody, "")
	l.learnFrom(x.RequestBody, "")
	b.fresh = l.commit(b.fresh)
	r.Channel, r.ChannelID, r.VirtualID = requestIdentity(x.header(x.reqPairs, x.RequestHeader, "X-Channelid"), x.RequestBody)
	b.link(r, x)
	return r
}

// link attributes a bearer call to the owner of its token, and remembers
// the owners of the tokens an answer hands out.
func (b *Builder) link(r *record, x *Exchange) {
	if v := bearerOf(x); v != "" {
		id, known := b.creds[hashOf(v)]
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
	for _, v := range handedOut(x.ResponseBody) {
		h := hashOf(v)
		if _, ok := b.creds[h]; !ok {
			if len(b.credOrder) < maxCreds {
				b.credOrder = append(b.credOrder, h)
			} else {
				delete(b.creds, b.credOrder[b.credNext])
				b.credOrder[b.credNext] = h
				b.credNext = (b.credNext + 1) % maxCreds
			}
		}
		b.creds[h] = ident{r.Channel, r.ChannelID, r.VirtualID}
	}
}

// bearerOf is the credential of the exchange's Authorization header.
func bearerOf(x *Exchange) string {
	_, v, _ := strings.Cut(x.header(x.reqPairs, x.RequestHeader, "Authorization"), " ")
	return strings.TrimSpace(v)
}

// The exchange's headers: the middleware's pairs, or (an exchange made
// elsewhere, such as the record proxy's) the http.Header.
func (x *Exchange) maskedRequestHeader() map[string]string {
	if x.reqPairs != nil {
		return x.reqPairs.masked()
	}
	return MaskHeader(x.RequestHeader)
}

func (x *Exchange) maskedResponseHeader() map[string]string {
	if x.resPairs != nil {
		return x.resPairs.masked()
	}
	return MaskHeader(x.ResponseHeader)
}

func (x *Exchange) header(p headerPairs, h http.Header, name string) string {
	if p != nil {
		return p.get(name)
	}
	return h.Get(name)
}
