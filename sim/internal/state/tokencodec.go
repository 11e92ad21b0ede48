package state

import (
	"errors"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Tokens and sessions are stored in the binary encoding of codec.go: a
// token issue's JSON encoding was a measurable share of its commit
// (issue 25). Each is a tag byte (a token's then its kind), then its
// record: channel, virtualId, and its times as appendUnixTime writes them.
const (
	tokenRecordTag   = 0x01
	sessionRecordTag = 0x02
)

var errBadRecord = errors.New("malformed token or session record")

// record is what a token and a session both say of themselves: what
// their index entry is made from, and what the purge of expired ones reads.
type record struct {
	channel, virtualID string
	issued, expires    time.Time
}

func tokenRecord(t model.Token) record {
	return record{t.Channel, t.VirtualID, t.IssuedAt, t.ExpiresAt}
}

func sessionRecord(s model.Session) record {
	return record{s.Channel, s.VirtualID, s.IssuedAt, s.ExpiresAt}
}

func encodeToken(t model.Token) []byte {
	b := make([]byte, 0, 1+len(t.Kind)+len(t.Channel)+len(t.VirtualID)+3+2*unixTimeMax)
	b = appendStr(append(b, tokenRecordTag), string(t.Kind))
	return appendRecord(b, tokenRecord(t))
}

func encodeSession(s model.Session) []byte {
	b := make([]byte, 0, 1+len(s.Channel)+len(s.VirtualID)+2+2*unixTimeMax)
	return appendRecord(append(b, sessionRecordTag), sessionRecord(s))
}

func appendRecord(b []byte, r record) []byte {
	b = appendStr(appendStr(b, r.channel), r.virtualID)
	return appendUnixTime(appendUnixTime(b, r.issued), r.expires)
}

// decodeToken reads a stored token (Value is the key, not stored).
func decodeToken(raw []byte) (model.Token, error) {
	d := newDecoder(raw)
	if d.Byte() != tokenRecordTag {
		d.Fail()
	}
	kind := model.TokenKind(d.String())
	r := d.record()
	return model.Token{Kind: kind, Channel: r.channel, VirtualID: r.virtualID, IssuedAt: r.issued, ExpiresAt: r.expires}, d.Done(errBadRecord)
}

// decodeSession reads a stored session (ID is the key, not stored).
func decodeSession(raw []byte) (model.Session, error) {
	d := newDecoder(raw)
	if d.Byte() != sessionRecordTag {
		d.Fail()
	}
	r := d.record()
	return model.Session{Channel: r.channel, VirtualID: r.virtualID, IssuedAt: r.issued, ExpiresAt: r.expires}, d.Done(errBadRecord)
}

// decodeRecord reads the record of a stored token or session.
func decodeRecord(raw []byte) (record, error) {
	d := newDecoder(raw)
	switch d.Byte() {
	case tokenRecordTag:
		_ = d.String() // its kind
	case sessionRecordTag:
	default:
		d.Fail()
	}
	r := d.record()
	return r, d.Done(errBadRecord)
}

func (d *decoder) record() record {
	r := record{channel: d.String(), virtualID: d.String()}
	r.issued = d.unixTime()
	r.expires = d.unixTime()
	return r
}
