package state

import (
	"encoding/binary"
	"time"
)

// The small binary encoding of the store's records (cards, coupons,
// tokens, sessions): a version or tag byte, then each string as a
// uvarint length and its bytes, and each time as appendTime or
// appendUnixTime writes it. Written and read without reflection: the
// JSON these records once were was a measurable share of their commits
// and of the listing's CPU (issue 25).

func appendStr(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// appendTime writes t's binary form (time.Time.AppendBinary) after its
// length in one byte.
func appendTime(b []byte, t time.Time) []byte {
	at := len(b)
	b = append(b, 0) // the length, set below: MarshalBinary allocated each time
	out, err := t.AppendBinary(b)
	if err != nil { // a zone offset that is not whole minutes: keep the instant
		out, _ = t.UTC().AppendBinary(b)
	}
	out[at] = byte(len(out) - at - 1)
	return out
}

// unixTimeMax is the most bytes appendUnixTime writes.
const unixTimeMax = 3 * binary.MaxVarintLen64

// appendUnixTime writes t as its Unix seconds, nanoseconds and zone
// offset in seconds: what its JSON text (RFC 3339) kept, so it reads
// back as the same instant in the same place the JSON did.
func appendUnixTime(b []byte, t time.Time) []byte {
	_, offset := t.Zone()
	b = binary.AppendVarint(b, t.Unix())
	b = binary.AppendUvarint(b, uint64(t.Nanosecond()))
	return binary.AppendVarint(b, int64(offset))
}

// decoder reads a record; the first error sticks.
type decoder struct {
	b   []byte
	s   string // a copy of the whole record (bbolt's bytes die with the transaction)
	err bool
}

// newDecoder reads raw, copied once: every string read is a slice of the copy.
func newDecoder(raw []byte) decoder { return decoder{b: raw, s: string(raw)} }

func (d *decoder) fail() { d.err, d.b = true, nil }

// done is nil if the record was read whole and without error, else corrupt.
func (d *decoder) done(corrupt error) error {
	if d.err || len(d.b) != 0 {
		return corrupt
	}
	return nil
}

func (d *decoder) byte() byte {
	if len(d.b) < 1 {
		d.fail()
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) uint64() uint64 {
	if len(d.b) < 8 {
		d.fail()
		return 0
	}
	v := binary.BigEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// bytes reads a string or a time (each a length, then that many bytes:
// a time's length is one byte, below 128, so the same varint) as a slice
// of the record.
func (d *decoder) bytes() []byte {
	// A length below 128 is one byte: read here without a call (a
	// listing of ten cards reads some 300 strings and times).
	if b := d.b; len(b) > 0 && int(b[0]) < min(0x80, len(b)) {
		n := 1 + int(b[0])
		d.b = b[n:]
		return b[1:n:n]
	}
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

// str is a slice of the record's copy (newDecoder).
func (d *decoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return ""
	}
	at := len(d.s) - len(d.b)
	d.b = d.b[n:]
	return d.s[at : at+int(n)]
}

// time reads what appendTime wrote.
func (d *decoder) time() time.Time {
	raw := d.bytes()
	var t time.Time
	if err := t.UnmarshalBinary(raw); err != nil && !d.err {
		d.fail()
	}
	return t
}

// unixTime reads what appendUnixTime wrote, placed as parsing its RFC
// 3339 text places it (time.Parse): offset 0 is UTC; another offset is
// the local zone if that zone has it at that instant, else an unnamed
// fixed zone.
func (d *decoder) unixTime() time.Time {
	sec, nsec, offset := d.varint(), d.uvarint(), d.varint()
	if d.err || nsec >= 1e9 || offset != int64(int32(offset)) {
		d.fail()
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

// instant reads a time as the instant it names, in UTC: a zone other
// than UTC or Local costs an allocation per time (time.FixedZone), and
// the listing renders times in the scenario's zone.
func (d *decoder) instant() time.Time {
	at, ok := instant(d.bytes())
	if !ok && !d.err {
		d.fail()
	}
	return at
}

// unixToInternal is the seconds from January 1, year 1 (the epoch of
// time.Time's binary form) to the Unix epoch.
const unixToInternal = 62135596800

// instant reads time.Time's binary form (version 1 or 2: seconds since
// year 1, nanoseconds, zone offset) as the instant it names, in UTC.
func instant(b []byte) (time.Time, bool) {
	if len(b) == 0 || (b[0] != 1 || len(b) != 15) && (b[0] != 2 || len(b) != 16) {
		return time.Time{}, false
	}
	sec := int64(binary.BigEndian.Uint64(b[1:]))
	nsec := int64(binary.BigEndian.Uint32(b[9:]))
	return time.Unix(sec-unixToInternal, nsec).UTC(), true
}
