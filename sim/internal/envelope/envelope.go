// Package envelope implements the signed envelope of the contract (ENV-1,
// ENV-2): {CHANNELID, SIGN, BDATA}, where BDATA is base64 of UTF-8 JSON and
// SIGN is base64 of SHA256withRSA (PKCS#1 v1.5) over the base64 BDATA
// string itself, not over the decoded JSON. It takes keys, never paths.
package envelope

import (
	"bytes"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// Envelope is the wire form of a signed call or answer.
type Envelope struct {
	CHANNELID string `json:"CHANNELID"`
	SIGN      string `json:"SIGN,omitempty"`
	BDATA     string `json:"BDATA"`
}

// Reasons a signature does not verify. They stay apart so that a tester
// (and the conformance report) can tell a bad encoding from a wrong key.
var (
	ErrNoSignature  = errors.New("SIGN is missing")
	ErrSignEncoding = errors.New("SIGN is not valid base64")
	ErrBadSignature = errors.New("SIGN does not verify over the base64 BDATA string")
)

// Sign returns SIGN for bdata: base64(SHA256withRSA(bdata as bytes)).
func Sign(key *rsa.PrivateKey, bdata string) (string, error) {
	sig, err := current().sign(key, []byte(bdata))
	if err != nil {
		return "", fmt.Errorf("sign: %w", err)
	}
	return base64.StdEncoding.EncodeToString(sig), nil
}

// Verify checks sign against the base64 BDATA string bdata.
func Verify(pub *rsa.PublicKey, bdata, sign string) error {
	if sign == "" {
		return ErrNoSignature
	}
	sig, err := base64.StdEncoding.DecodeString(sign)
	if err != nil {
		return ErrSignEncoding
	}
	return current().verify(pub, []byte(bdata), sig)
}

// SignedOverDecodedJSON reports whether sign verifies over the decoded
// BDATA bytes instead of the base64 string: the most common publisher
// mistake, worth naming in a finding.
func SignedOverDecodedJSON(pub *rsa.PublicKey, bdata, sign string) bool {
	raw, err := base64.StdEncoding.DecodeString(bdata)
	if err != nil {
		return false
	}
	return Verify(pub, string(raw), sign) == nil
}

// Encode marshals payload to JSON, without HTML escaping (a URL keeps
// its `&`, as the vendor's service sends it), and returns it
// base64-encoded. SIGN is made over this very string, so the bytes a
// publisher decodes are the bytes that were signed.
func Encode(payload any) (string, error) {
	bufs := encodeBufs.Get().(*encodeBuf)
	defer bufs.put()
	b64, err := bufs.encode(payload)
	return string(b64), err
}

// Appender is a payload that writes its own JSON, byte for byte as
// encoding/json without HTML escaping writes it (each implementation's
// test compares the two): Encode then skips reflection. The token and
// session answers are, on the signed calls' busiest path.
type Appender interface {
	AppendJSON(b []byte) []byte
}

// encode leaves payload's JSON in bufs.json and its base64 in bufs.b64,
// and returns the latter (bufs' own bytes).
func (bufs *encodeBuf) encode(payload any) ([]byte, error) {
	bufs.json.Reset()
	var raw []byte
	if a, ok := payload.(Appender); ok {
		bufs.raw = a.AppendJSON(bufs.raw[:0])
		raw = bufs.raw
	} else {
		enc := json.NewEncoder(&bufs.json)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(payload); err != nil {
			return nil, fmt.Errorf("encode BDATA: %w", err)
		}
		raw = bytes.TrimSuffix(bufs.json.Bytes(), []byte("\n"))
	}
	bufs.b64 = base64.StdEncoding.AppendEncode(bufs.b64[:0], raw)
	return bufs.b64, nil
}

func (bufs *encodeBuf) put() {
	if bufs.json.Cap() <= maxPooledEncode && cap(bufs.raw) <= maxPooledEncode {
		encodeBufs.Put(bufs)
	}
}

// encodeBufs hold an answer's JSON and its base64 until the BDATA string
// is made (they never leave Encode or Seal); an answer larger than
// maxPooledEncode (a long listing) is not kept.
var encodeBufs = sync.Pool{New: func() any { return new(encodeBuf) }}

type encodeBuf struct {
	json bytes.Buffer
	raw  []byte // an Appender's JSON
	b64  []byte
}

const maxPooledEncode = 64 << 10

// AppendJSON appends e as encoding/json writes it (fields in order, SIGN
// omitted when empty, no HTML escaping) and reports true, when every
// field is plain printable ASCII without a quote or backslash, as the
// base64 BDATA and SIGN always are; otherwise it returns b and false and
// the caller marshals e. TestAppendJSONAgrees compares both.
func (e Envelope) AppendJSON(b []byte) ([]byte, bool) {
	if !plain(e.CHANNELID) || !plain(e.SIGN) || !plain(e.BDATA) {
		return b, false
	}
	b = append(b, `{"CHANNELID":"`...)
	b = append(b, e.CHANNELID...)
	if e.SIGN != "" {
		b = append(b, `","SIGN":"`...)
		b = append(b, e.SIGN...)
	}
	b = append(b, `","BDATA":"`...)
	b = append(b, e.BDATA...)
	return append(b, `"}`...), true
}

// plain: JSON writes s between quotes as it is.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// Decode returns the JSON bytes inside a base64 BDATA string.
func Decode(bdata string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(bdata)
	if err != nil {
		return nil, errors.New("BDATA is not valid base64")
	}
	return raw, nil
}

// Seal builds a signed envelope carrying payload. SIGN is made over the
// encoded bytes themselves (the same bytes as the BDATA string, without
// a copy of them for the signer).
func Seal(key *rsa.PrivateKey, channelID string, payload any) (Envelope, error) {
	bufs := encodeBufs.Get().(*encodeBuf)
	defer bufs.put()
	b64, err := bufs.encode(payload)
	if err != nil {
		return Envelope{}, err
	}
	sig, err := current().sign(key, b64)
	if err != nil {
		return Envelope{}, fmt.Errorf("sign: %w", err)
	}
	return Envelope{CHANNELID: channelID, SIGN: base64.StdEncoding.EncodeToString(sig), BDATA: string(b64)}, nil
}
