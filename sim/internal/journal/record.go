package journal

import (
	"encoding/json"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/outcome"
)

// record is an entry as stored (see codec.go): the exchange's facts as
// its way in found them, the bodies as raw bytes. Turning bodies into JSON
// (validating, compacting, decoding BDATA) waits until an entry is read,
// so the background writer stays cheap.
type record struct {
	Seq       uint64
	Kind      string
	At        time.Time
	LatencyUs int64
	Listener  string
	Host      string
	Endpoint  string
	Method    string
	Path      string
	Query     string
	Channel   string
	ChannelID string
	VirtualID string
	Status    int
	Reason    string
	Fault     string
	// Limit is the answer's LimitHeader (httpx): what its channel's
	// capacity limit did to the call; read from the stored header.
	Limit      string
	ClientGone bool
	Dropped    bool
	Unadmitted bool
	Error      string
	ReqHeader  map[string]string
	ResHeader  map[string]string
	// reqHeader and resHeader are the masked headers as the writer
	// builds them, used where the maps are nil.
	reqHeader, resHeader headerPairs
	ReqBody              []byte
	ResBody              []byte
	ReqTrunc             bool
	ResTrunc             bool
	// facts, when hasFacts, are ResBody's, read once for a repeated
	// answer (secrets.Memo).
	facts    outcome.Facts
	hasFacts bool
	// resHash is ResBody's hash as the learn memo took it (0: none).
	resHash uint64
}

// entry expands a stored record.
func (r *record) entry() Entry {
	e := r.summary()
	reqH, resH := r.ReqHeader, r.ResHeader
	if reqH == nil {
		reqH = r.reqHeader.toMap()
	}
	if resH == nil {
		resH = r.resHeader.toMap()
	}
	e.Request = message(reqH, r.ReqBody, r.ReqTrunc)
	e.Response = message(resH, r.ResBody, r.ResTrunc)
	return e
}

// message builds a Message from a masked header and a raw body.
func message(h map[string]string, body []byte, truncated bool) Message {
	m := Message{Header: h, Truncated: truncated}
	if len(body) == 0 {
		return m
	}
	if !truncated && shallow(body) && json.Valid(body) {
		m.Body = compact(body)
		m.BDATA = decodedBDATA(m.Body)
	} else {
		m.Text = string(body)
	}
	return m
}
