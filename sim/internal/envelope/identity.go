package envelope

import (
	"encoding/base64"
	"encoding/json"
	"errors"
)

// identityFields are the fields that say whom a request body is for, at
// its top or in its BDATA.
type identityFields struct {
	CHANNELID   string `json:"CHANNELID"`
	BDATA       string `json:"BDATA"`
	ChannelName string `json:"channelName"`
	BName       string `json:"bName"`
	VirtualID   string `json:"virtualId"`
}

// Identity is whom a request says it is for, read leniently and trusting
// nothing: an envelope's CHANNELID and its BDATA's channelName (or bName)
// and virtualId, or a plain body's channelName and virtualId; the header
// X-CHANNELID, xChannelID, comes first. It serves a call that no way in
// admitted (a refusal, an endpoint the real service lacks, a path of no
// endpoint) and the record proxy, which sees another service's traffic;
// a call that was admitted is attributed by what admitted it. A field of
// another type is left empty; invalid JSON names no one.
func Identity(xChannelID string, body []byte) (channel, channelID, virtualID string) {
	channelID = xChannelID
	var top, inner identityFields
	if len(body) == 0 || body[0] != '{' || !lenient(json.Unmarshal(body, &top)) {
		return channelID, channelID, ""
	}
	if top.CHANNELID != "" {
		channelID = top.CHANNELID
	}
	if top.BDATA != "" {
		if raw, err := base64.StdEncoding.DecodeString(top.BDATA); err == nil && !lenient(json.Unmarshal(raw, &inner)) {
			inner = identityFields{} // invalid JSON names no one
		}
	}
	channel = first(inner.ChannelName, inner.BName, top.ChannelName, top.BName, channelID)
	virtualID = first(inner.VirtualID, top.VirtualID)
	return channel, channelID, virtualID
}

// lenient accepts a decode whose only problem is a field of another type
// (that field stays empty; the others are read).
func lenient(err error) bool {
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
