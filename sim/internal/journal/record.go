package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/schema"
	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

// record is an entry as stored (see codec.go): the identity of the exchange worked out
// at write time, the bodies as raw bytes. Turning bodies into JSON
// (validating, compacting, decoding BDATA) waits until an entry is read,
// so the background writer stays cheap.
type record struct {
	Seq        uint64
	Kind       string
	At         time.Time
	LatencyUs  int64
	Listener   string
	Host       string
	Endpoint   string
	Method     string
	Path       string
	Query      string
	Channel    string
	ChannelID  string
	VirtualID  string
	Status     int
	Reason     string
	Fault      string
	ClientGone bool
	Dropped    bool
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
	facts    answerFacts
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

// envelopeFields are the identity fields of a request body or its BDATA.
type envelopeFields struct {
	CHANNELID   string `json:"CHANNELID"`
	BDATA       string `json:"BDATA"`
	ChannelName string `json:"channelName"`
	BName       string `json:"bName"`
	VirtualID   string `json:"virtualId"`
}

// requestIdentity reads channel, CHANNELID and virtualId from a request:
// the envelope's CHANNELID and BDATA (channelName or bName, virtualId),
// or a plain body's channelName and virtualId; header X-CHANNELID first.
// It reads as json.Unmarshal into envelopeFields would (keys matched
// without regard to case, the last of a repeated key, fields of another
// type left empty, nothing from invalid JSON), without its reflection:
// the writer runs it for every exchange (issue 25).
func requestIdentity(xChannelID string, body []byte, bdata *secrets.Decoded) (channel, channelID, virtualID string) {
	channelID = xChannelID
	var top envelopeFields
	if len(body) == 0 || body[0] != '{' || !readFields(body, &top) {
		return channelID, channelID, ""
	}
	if top.CHANNELID != "" {
		channelID = top.CHANNELID
	}
	var inner envelopeFields
	if top.BDATA != "" {
		if raw, ok := bdata.DecodeString(top.BDATA); ok {
			readFields(raw, &inner) // invalid JSON leaves every field empty
		}
	}
	channel = first(inner.ChannelName, inner.BName, top.ChannelName, top.BName, channelID)
	virtualID = first(inner.VirtualID, top.VirtualID)
	return channel, channelID, virtualID
}

// readFields fills f from b's top-level string fields; false when b is
// not valid JSON. A value with escapes is decoded by encoding/json.
func readFields(b []byte, f *envelopeFields) bool {
	if !schema.Valid(b) {
		return false
	}
	escaped := false
	ok := topStrings(b, func(key, val []byte) {
		var dst *string
		switch {
		case bytes.EqualFold(key, []byte("CHANNELID")):
			dst = &f.CHANNELID
		case bytes.EqualFold(key, []byte("BDATA")):
			dst = &f.BDATA
		case bytes.EqualFold(key, []byte("channelName")):
			dst = &f.ChannelName
		case bytes.EqualFold(key, []byte("bName")):
			dst = &f.BName
		case bytes.EqualFold(key, []byte("virtualId")):
			dst = &f.VirtualID
		default:
			return
		}
		if bytes.IndexByte(val, '\\') >= 0 || bytes.IndexByte(key, '\\') >= 0 {
			escaped = true
			return
		}
		*dst = string(val)
	})
	if !ok {
		return false
	}
	if escaped {
		*f = envelopeFields{}
		return tolerant(json.Unmarshal(b, f))
	}
	return true
}

// topStrings calls fn with each key of the top-level object b whose
// value is a string (raw, escapes left in); b must be valid JSON.
func topStrings(b []byte, fn func(key, val []byte)) bool {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			end := secrets.StringEnd(b[i+1:])
			if end < 0 {
				return false
			}
			str := b[i+1 : i+1+end]
			i += end + 1
			if depth != 1 {
				continue
			}
			j := i + 1
			for j < len(b) && isSpace(b[j]) {
				j++
			}
			if j >= len(b) || b[j] != ':' {
				continue // a value, not a key
			}
			j++
			for j < len(b) && isSpace(b[j]) {
				j++
			}
			if j < len(b) && b[j] == '"' {
				vend := secrets.StringEnd(b[j+1:])
				if vend < 0 {
					return false
				}
				fn(str, b[j+1:j+1+vend])
				i = j + vend + 1
			} else {
				i = j - 1
			}
		}
	}
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// tolerant accepts a decode whose only problem is a field of another
// type (that field stays empty; the others are read).
func tolerant(err error) bool {
	var te *json.UnmarshalTypeError
	return err == nil || errors.As(err, &te)
}

func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

var bdataKey = []byte(`"BDATA"`)

// handedOut returns the credentials an envelope answer hands out: its
// BDATA's token and referenceKey (read as json.Unmarshal would, without
// its reflection).
func handedOut(body []byte, bdata *secrets.Decoded) []string {
	if !bytes.Contains(body, bdataKey) {
		return nil
	}
	var env envelopeFields
	if !readFields(body, &env) || env.BDATA == "" {
		return nil
	}
	raw, ok := bdata.DecodeString(env.BDATA)
	if !ok || !schema.Valid(raw) {
		return nil
	}
	var token, refKey string
	escaped := false
	topStrings(raw, func(key, val []byte) {
		var dst *string
		switch {
		case bytes.EqualFold(key, []byte("token")):
			dst = &token
		case bytes.EqualFold(key, []byte("referenceKey")):
			dst = &refKey
		default:
			return
		}
		if bytes.IndexByte(val, '\\') >= 0 || bytes.IndexByte(key, '\\') >= 0 {
			escaped = true
			return
		}
		*dst = string(val)
	})
	if escaped {
		var creds struct {
			Token        string
			ReferenceKey string `json:"referenceKey"`
		}
		if json.Unmarshal(raw, &creds) != nil {
			return nil
		}
		token, refKey = creds.Token, creds.ReferenceKey
	}
	var out []string
	for _, v := range []string{token, refKey} {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}
