package state

import (
	"encoding/binary"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/bincodec"
)

// The store's records (cards, coupons, tokens, sessions) in the
// simulator's binary encoding (bincodec, shared with the journal): a
// version or tag byte, then the fields, each time as appendTime or
// appendUnixTime writes it.

func appendStr(b []byte, s string) []byte { return bincodec.AppendString(b, s) }

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

// decoder reads a record (bincodec.Decoder) and the state's times.
type decoder struct{ bincodec.Decoder }

// newDecoder reads raw, copied once: every string read is a slice of the copy.
func newDecoder(raw []byte) decoder { return decoder{bincodec.NewCopying(raw)} }

// time reads what appendTime wrote.
func (d *decoder) time() time.Time {
	raw := d.Bytes()
	var t time.Time
	if err := t.UnmarshalBinary(raw); err != nil && !d.Failed() {
		d.Fail()
	}
	return t
}

// unixTime reads what appendUnixTime wrote, placed as parsing its RFC
// 3339 text places it (time.Parse): offset 0 is UTC; another offset is
// the local zone if that zone has it at that instant, else an unnamed
// fixed zone.
func (d *decoder) unixTime() time.Time {
	sec, nsec, offset := d.Varint(), d.Uvarint(), d.Varint()
	if d.Failed() || nsec >= 1e9 || offset != int64(int32(offset)) {
		d.Fail()
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
	at, ok := instant(d.Bytes())
	if !ok && !d.Failed() {
		d.Fail()
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
