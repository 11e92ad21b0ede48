package journal

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"
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
	ReqBody    []byte
	ResBody    []byte
	ReqTrunc   bool
	ResTrunc   bool
}

// entry expands a stored record.
func (r *record) entry() Entry {
	e := r.summary()
	e.Request = message(r.ReqHeader, r.ReqBody, r.ReqTrunc)
	e.Response = message(r.ResHeader, r.ResBody, r.ResTrunc)
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
func requestIdentity(xChannelID string, body []byte) (channel, channelID, virtualID string) {
	channelID = xChannelID
	var top envelopeFields
	if len(body) == 0 || body[0] != '{' || !tolerant(json.Unmarshal(body, &top)) {
		return channelID, channelID, ""
	}
	if top.CHANNELID != "" {
		channelID = top.CHANNELID
	}
	var inner envelopeFields
	if top.BDATA != "" {
		if raw, err := base64.StdEncoding.DecodeString(top.BDATA); err == nil {
			_ = json.Unmarshal(raw, &inner) // fields of other types stay empty
		}
	}
	channel = first(inner.ChannelName, inner.BName, top.ChannelName, top.BName, channelID)
	virtualID = first(inner.VirtualID, top.VirtualID)
	return channel, channelID, virtualID
}

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

// handedOut returns the credentials an envelope answer hands out.
func handedOut(body []byte) []string {
	if !bytes.Contains(body, bdataKey) {
		return nil
	}
	var env struct{ BDATA string }
	if json.Unmarshal(body, &env) != nil || env.BDATA == "" {
		return nil
	}
	raw, err := base64.StdEncoding.DecodeString(env.BDATA)
	if err != nil {
		return nil
	}
	var creds struct {
		Token        string
		ReferenceKey string `json:"referenceKey"`
	}
	if json.Unmarshal(raw, &creds) != nil {
		return nil
	}
	var out []string
	for _, v := range []string{creds.Token, creds.ReferenceKey} {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}
