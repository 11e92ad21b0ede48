package state

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Tokens and sessions are stored in a compact binary form, written and
// read without reflection: a token issue's JSON encoding was a
// measurable share of its commit (issue 25). The form is a tag byte, then
// each string as a uvarint length and its bytes, each time as in
// appendRecordTime.
const (
	tokenRecordTag   = 0x01
	sessionRecordTag = 0x02
)

var errBadRecord = errors.New("malformed token or session record")

func encodeToken(t model.Token) []byte {
	b := make([]byte, 0, 1+len(t.Kind)+len(t.Channel)+len(t.VirtualID)+3+2*recordTimeMax)
	b = append(b, tokenRecordTag)
	b = appendRecordString(b, string(t.Kind))
	b = appendRecordString(b, t.Channel)
	b = appendRecordString(b, t.VirtualID)
	b = appendRecordTime(b, t.IssuedAt)
	return appendRecordTime(b, t.ExpiresAt)
}

// decodeToken reads a stored token (Value is the key, not stored).
func decodeToken(raw []byte) (model.Token, error) {
	var t model.Token
	r := recordReader{raw: raw}
	r.tag(tokenRecordTag)
	t.Kind = model.TokenKind(r.string())
	t.Channel = r.string()
	t.VirtualID = r.string()
	t.IssuedAt = r.time()
	t.ExpiresAt = r.time()
	return t, r.done()
}

func encodeSession(s model.Session) []byte {
	b := make([]byte, 0, 1+len(s.Channel)+len(s.VirtualID)+2+2*recordTimeMax)
	b = append(b, sessionRecordTag)
	b = appendRecordString(b, s.Channel)
	b = appendRecordString(b, s.VirtualID)
	b = appendRecordTime(b, s.IssuedAt)
	return appendRecordTime(b, s.ExpiresAt)
}

// decodeSession reads a stored session (ID is the key, not stored).
func decodeSession(raw []byte) (model.Session, error) {
	var s model.Session
	r := recordReader{raw: raw}
	r.tag(sessionRecordTag)
	s.Channel = r.string()
	s.VirtualID = r.string()
	s.IssuedAt = r.time()
	s.ExpiresAt = r.time()
	return s, r.done()
}

func appendRecordString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// recordTimeMax is the most bytes appendRecordTime writes.
const recordTimeMax = 3 * binary.MaxVarintLen64

// appendRecordTime writes t as its Unix seconds, nanoseconds and zone
// offset in seconds: what its JSON text (RFC 3339) kept, so it reads
// back as the same instant in the same place the JSON did.
func appendRecordTime(b []byte, t time.Time) []byte {
	_, offset := t.Zone()
	b = binary.AppendVarint(b, t.Unix())
	b = binary.AppendUvarint(b, uint64(t.Nanosecond()))
	return binary.AppendVarint(b, int64(offset))
}

type recordReader struct {
	raw []byte
	bad bool
}

func (r *recordReader) tag(want byte) {
	if len(r.raw) == 0 || r.raw[0] != want {
		r.bad = true
		return
	}
	r.raw = r.raw[1:]
}

func (r *recordReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.raw)
	if n <= 0 {
		r.bad, r.raw = true, nil
		return 0
	}
	r.raw = r.raw[n:]
	return v
}

func (r *recordReader) varint() int64 {
	v, n := binary.Varint(r.raw)
	if n <= 0 {
		r.bad, r.raw = true, nil
		return 0
	}
	r.raw = r.raw[n:]
	return v
}

// string copies the bytes out: a record's bytes belong to its transaction.
func (r *recordReader) string() string {
	n := r.uvarint()
	if n > uint64(len(r.raw)) {
		r.bad, r.raw = true, nil
		return ""
	}
	s := string(r.raw[:n])
	r.raw = r.raw[n:]
	return s
}

// time reads what appendRecordTime wrote, placed as parsing its RFC 3339
// text places it (time.Parse): offset 0 is UTC; another offset is the
// local zone if that zone has it at that instant, else an unnamed fixed
// zone.
func (r *recordReader) time() time.Time {
	sec, nsec, offset := r.varint(), r.uvarint(), r.varint()
	if r.bad || nsec >= 1e9 || offset != int64(int32(offset)) {
		r.bad = true
		return time.Time{}
	}
	t := time.Unix(sec, int64(nsec))
	if offset == 0 {
		return t.UTC()
	}
	if _, local := t.Zone(); int64(local) == offset {
		return t // time.Unix places it in the local zone
	}
	return t.In(time.FixedZone("", int(offset)))
}

func (r *recordReader) done() error {
	if r.bad || len(r.raw) != 0 {
		return errBadRecord
	}
	return nil
}
