// Package bincodec is the small binary encoding of the simulator's
// stored records, the state's (cards, coupons, tokens, sessions) and the
// journal's: each string or byte string as a uvarint length and its
// bytes, numbers as varints, uvarints or 8 big-endian bytes. Written and
// read without reflection: JSON records were a measurable share of the
// store's commits and of the listing's CPU (issue 25), and the journal
// writer's cost per entry is added to every request's.
//
// Each record's layout (its version or tag byte, its fields in order)
// belongs to its owner's package; this one holds what they share.
package bincodec

import (
	"encoding/binary"
	"math/bits"
)

// AppendString writes s's length, then its bytes; bytes are taken as
// they are (a body converted to a string first was a copy of it).
func AppendString[T string | []byte](b []byte, s T) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// StringLen is how many bytes AppendString writes for n bytes.
func StringLen(n int) int { return (bits.Len64(uint64(n)|1)+6)/7 + n }

// Decoder reads a record; the first error sticks, and every read after
// it gives a zero value.
type Decoder struct {
	b   []byte
	s   string // with NewCopying: a copy of the whole record
	err bool
}

// NewDecoder reads raw in place: Bytes are slices of raw.
func NewDecoder(raw []byte) Decoder { return Decoder{b: raw} }

// NewCopying reads raw copied once (bbolt's bytes die with their
// transaction): every String read is a slice of the copy, not a copy of
// its own.
func NewCopying(raw []byte) Decoder { return Decoder{b: raw, s: string(raw)} }

// Fail marks the record corrupt.
func (d *Decoder) Fail() { d.err, d.b = true, nil }

// Failed reports whether a read failed.
func (d *Decoder) Failed() bool { return d.err }

// Len is how many bytes are left.
func (d *Decoder) Len() int { return len(d.b) }

// Done is nil if the record was read whole and without error, else
// corrupt.
func (d *Decoder) Done(corrupt error) error {
	if d.err || len(d.b) != 0 {
		return corrupt
	}
	return nil
}

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	if len(d.b) < 1 {
		d.Fail()
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

// Uint64 reads 8 big-endian bytes.
func (d *Decoder) Uint64() uint64 {
	if len(d.b) < 8 {
		d.Fail()
		return 0
	}
	v := binary.BigEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

// Uvarint reads an unsigned varint.
func (d *Decoder) Uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	return v * uint64(d.skip(n))
}

// Varint reads a signed varint.
func (d *Decoder) Varint() int64 {
	v, n := binary.Varint(d.b)
	return v * int64(d.skip(n))
}

// skip moves past a varint of n bytes (n <= 0: none could be read, and
// the record is corrupt): 1, or 0 after a failure.
func (d *Decoder) skip(n int) int {
	if n <= 0 {
		d.Fail()
		return 0
	}
	d.b = d.b[n:]
	return 1
}

// Bytes reads what AppendString wrote as a slice of the record.
func (d *Decoder) Bytes() []byte {
	// A length below 128 is one byte: read here without a call (a
	// listing of ten cards reads some 300 strings and times).
	if b := d.b; len(b) > 0 && int(b[0]) < min(0x80, len(b)) {
		n := 1 + int(b[0])
		d.b = b[n:]
		return b[1:n:n]
	}
	n := d.Uvarint()
	if n > uint64(len(d.b)) {
		d.Fail()
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

// String reads what AppendString wrote: a slice of the record's copy
// (NewCopying), else a string of its own.
func (d *Decoder) String() string {
	if d.s == "" {
		return string(d.Bytes())
	}
	n := d.Uvarint()
	if n > uint64(len(d.b)) {
		d.Fail()
		return ""
	}
	at := len(d.s) - len(d.b)
	d.b = d.b[n:]
	return d.s[at : at+int(n)]
}
