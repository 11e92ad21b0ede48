package journal

import (
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
)

// Builder turns exchanges into entries: it masks secrets, decodes
// envelopes, finds the operation, the injected fault, the channel and the
// user. It remembers which channel and user each handed-out token belongs
// to, so it is not safe for concurrent use.
type Builder struct {
	creds map[string]ident
}

type ident struct{ channel, channelID, virtualID string }

// NewBuilder returns an empty builder.
func NewBuilder() *Builder { return &Builder{creds: map[string]ident{}} }

// Build makes the entry of x (Seq is left 0).
func (b *Builder) Build(x *Exchange) *Entry {
	e := &Entry{
		Kind: KindExchange, At: x.At, LatencyMs: ms(x.Latency), Listener: x.Listener,
		Method: x.Method, Path: x.Path, Query: x.Query, Status: x.Status, ClientGone: x.ClientGone,
		Request:  newMessage(x.RequestHeader, x.RequestBody, x.RequestTrunc),
		Response: newMessage(x.ResponseHeader, x.ResponseBody, x.ResTrunc),
	}
	if op, ok := contract.ByPath(x.Method, x.Path); ok {
		e.Endpoint, e.Host = op.Name, string(op.Host)
	}
	e.Reason = x.ResponseHeader.Get("X-Rewardsim-Reason")
	if f, ok := strings.CutPrefix(e.Reason, FaultPrefix); ok {
		e.Fault = f
	}
	e.identify()
	b.linkCredentials(e)
	return e
}

// linkCredentials remembers which channel and user each handed-out token
// belongs to, so a later bearer call without a body (the listing) is
// still attributed to its channel and user.
func (b *Builder) linkCredentials(e *Entry) {
	auth := e.Request.Header["Authorization"]
	if _, fp, ok := strings.Cut(auth, " "); ok {
		if id, known := b.creds[fp]; known {
			if e.Channel == "" {
				e.Channel, e.ChannelID = id.channel, id.channelID
			}
			if e.VirtualID == "" {
				e.VirtualID = id.virtualID
			}
		}
	}
	got := fields(e.Response.BDATA, "token", "referenceKey")
	if len(got) == 0 || e.Channel == "" {
		return
	}
	if len(b.creds) > 50_000 {
		clear(b.creds)
	}
	for _, v := range got {
		b.creds[Fingerprint(v)] = ident{e.Channel, e.ChannelID, e.VirtualID}
	}
}
