package journal

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"
)

// record is an entry as stored: the identity of the exchange worked out
// at write time, the bodies as raw bytes. Turning bodies into JSON
// (validating, compacting, decoding BDATA) waits until an entry is read,
// so the background writer stays cheap.
type record struct {
	Seq        uint64            `json:"s"`
	Kind       string            `json:"k"`
	At         time.Time         `json:"t"`
	LatencyUs  int64             `json:"l"`
	Listener   string            `json:"li,omitempty"`
	Host       string            `json:"h,omitempty"`
	Endpoint   string            `json:"e,omitempty"`
	Method     string            `json:"m"`
	Path       string            `json:"p"`
	Query      string            `json:"q,omitempty"`
	Channel    string            `json:"c,omitempty"`
	ChannelID  string            `json:"ci,omitempty"`
	VirtualID  string            `json:"v,omitempty"`
	Status     int               `json:"st"`
	Reason     string            `json:"r,omitempty"`
	Fault      string            `json:"f,omitempty"`
	ClientGone bool              `json:"g,omitempty"`
	Error      string            `json:"er,omitempty"`
	ReqHeader  map[string]string `json:"qh,omitempty"`
	ResHeader  map[string]string `json:"rh,omitempty"`
	ReqBody    []byte            `json:"qb,omitempty"`
	ResBody    []byte            `json:"rb,omitempty"`
	ReqTrunc   bool              `json:"qt,omitempty"`
	ResTrunc   bool              `json:"rt,omitempty"`
}

// entry expands a stored record.
func (r *record) entry() Entry {
	return Entry{
		Seq: r.Seq, Kind: r.Kind, At: r.At, LatencyMs: float64(r.LatencyUs) / 1000,
		Listener: r.Listener, Host: r.Host, Endpoint: r.Endpoint, Method: r.Method, Path: r.Path, Query: r.Query,
		Channel: r.Channel, ChannelID: r.ChannelID, VirtualID: r.VirtualID, Status: r.Status,
		Reason: r.Reason, Fault: r.Fault, ClientGone: r.ClientGone, Error: r.Error,
		Request:  message(r.ReqHeader, r.ReqBody, r.ReqTrunc),
		Response: message(r.ResHeader, r.ResBody, r.ResTrunc),
	}
}

// message builds a Message from a masked header and a raw body.
func message(h map[string]string, body []byte, truncated bool) Message {
	m := Message{Header: h, Truncated: truncated}
	if len(body) == 0 {
		return m
	}
	if !truncated && json.Valid(body) {
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
		Token        string `json:"token"`
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
