package journal

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"sync"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/httpx"
)

// Stored records use a small binary encoding (no reflection, bodies kept
// as raw bytes): the writer's cost per entry is what the journal adds to
// every request's CPU, so it is kept low.
const codecVersion = 1

var errCodec = errors.New("journal: corrupt record")

func (r *record) appendBinary(b []byte) []byte {
	b = append(b, codecVersion)
	b = binary.AppendUvarint(b, r.Seq)
	_, off := r.At.Zone()
	b = binary.AppendVarint(b, r.At.UnixNano())
	b = binary.AppendVarint(b, int64(off))
	b = binary.AppendVarint(b, r.LatencyUs)
	b = binary.AppendVarint(b, int64(r.Status))
	for _, s := range []string{r.Kind, r.Listener, r.Host, r.Endpoint, r.Method, r.Path, r.Query, r.Channel, r.ChannelID, r.VirtualID, r.Reason, r.Fault, r.Error} {
		b = appendString(b, s)
	}
	var flags byte
	for i, f := range []bool{r.ClientGone, r.ReqTrunc, r.ResTrunc, r.Dropped, r.Unadmitted} {
		if f {
			flags |= 1 << i
		}
	}
	b = append(b, flags)
	b = appendHeader(b, r.ReqHeader, r.reqHeader)
	b = appendHeader(b, r.ResHeader, r.resHeader)
	b = appendString(b, r.ReqBody)
	return appendString(b, r.ResBody)
}

// resBodyLen is how many bytes the answer's body takes at the end of
// what appendBinary wrote (its length, then its bytes).
func (r *record) resBodyLen() int {
	return (bits.Len64(uint64(len(r.ResBody))|1)+6)/7 + len(r.ResBody)
}

// appendHeader encodes h, or the pairs p when h is nil.
func appendHeader(b []byte, h map[string]string, p headerPairs) []byte {
	if h == nil {
		b = binary.AppendUvarint(b, uint64(len(p)/2))
		for i := 0; i+1 < len(p); i += 2 {
			b = appendString(appendString(b, p[i]), p[i+1])
		}
		return b
	}
	b = binary.AppendUvarint(b, uint64(len(h)))
	for k, v := range h {
		b = appendString(appendString(b, k), v)
	}
	return b
}

// appendString takes bytes as they are: a body converted to a string
// first was a copy of it (issue 25).
func appendString[T string | []byte](b []byte, s T) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// binarySize is at least the length appendBinary adds, so one
// allocation holds the record.
func (r *record) binarySize() int {
	n := 1 + 5*binary.MaxVarintLen64 + 1
	for _, s := range []string{r.Kind, r.Listener, r.Host, r.Endpoint, r.Method, r.Path, r.Query, r.Channel, r.ChannelID, r.VirtualID, r.Reason, r.Fault, r.Error} {
		n += binary.MaxVarintLen64 + len(s)
	}
	n += headerSize(r.ReqHeader, r.reqHeader) + headerSize(r.ResHeader, r.resHeader)
	return n + 2*binary.MaxVarintLen64 + len(r.ReqBody) + len(r.ResBody)
}

func headerSize(h map[string]string, p headerPairs) int {
	n := binary.MaxVarintLen64
	if h == nil {
		for _, s := range p {
			n += binary.MaxVarintLen64 + len(s)
		}
		return n
	}
	for k, v := range h {
		n += 2*binary.MaxVarintLen64 + len(k) + len(v)
	}
	return n
}

// decoder reads what appendBinary wrote; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err, d.b = errCodec, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err, d.b = errCodec, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.err, d.b = errCodec, nil
		return nil
	}
	out := d.b[:n:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) string() string { return string(d.bytes()) }

var zones sync.Map // offset seconds -> *time.Location

func zone(off int) *time.Location {
	if off == 0 {
		return time.UTC
	}
	if z, ok := zones.Load(off); ok {
		return z.(*time.Location)
	}
	z, _ := zones.LoadOrStore(off, time.FixedZone("", off))
	return z.(*time.Location)
}

func (r *record) unmarshalBinary(data []byte) error {
	if len(data) == 0 || data[0] != codecVersion {
		return errCodec
	}
	d := &decoder{b: data[1:]}
	r.Seq = d.uvarint()
	nanos, off := d.varint(), d.varint()
	r.At = time.Unix(0, nanos).In(zone(int(off)))
	r.LatencyUs = d.varint()
	r.Status = int(d.varint())
	for _, s := range []*string{&r.Kind, &r.Listener, &r.Host, &r.Endpoint, &r.Method, &r.Path, &r.Query, &r.Channel, &r.ChannelID, &r.VirtualID, &r.Reason, &r.Fault, &r.Error} {
		*s = d.string()
	}
	if len(d.b) == 0 {
		return errCodec
	}
	flags := d.b[0]
	d.b = d.b[1:]
	r.ClientGone, r.ReqTrunc, r.ResTrunc, r.Dropped, r.Unadmitted = flags&1 != 0, flags&2 != 0, flags&4 != 0, flags&8 != 0, flags&16 != 0
	for _, h := range []*map[string]string{&r.ReqHeader, &r.ResHeader} {
		n := d.uvarint()
		if n > uint64(len(d.b)) {
			return errCodec
		}
		if n > 0 {
			*h = make(map[string]string, n)
		}
		for i := uint64(0); i < n && d.err == nil; i++ {
			k := d.string()
			(*h)[k] = d.string()
		}
	}
	r.ReqBody = nilIfEmpty(d.bytes())
	r.ResBody = nilIfEmpty(d.bytes())
	r.Limit = r.ResHeader[httpx.LimitHeader]
	return d.err
}

func nilIfEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}
