package journal

import (
	"encoding/binary"
	"errors"
	"sync"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/bincodec"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
)

// Stored records use the simulator's binary encoding (bincodec, shared
// with the state), bodies kept as raw bytes: the writer's cost per entry
// is what the journal adds to every request's CPU, so it is kept low.
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
		b = bincodec.AppendString(b, s)
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
	b = bincodec.AppendString(b, r.ReqBody)
	return bincodec.AppendString(b, r.ResBody)
}

// resBodyLen is how many bytes the answer's body takes at the end of
// what appendBinary wrote (its length, then its bytes).
func (r *record) resBodyLen() int { return bincodec.StringLen(len(r.ResBody)) }

// appendHeader encodes h, or the pairs p when h is nil.
func appendHeader(b []byte, h map[string]string, p headerPairs) []byte {
	if h == nil {
		b = binary.AppendUvarint(b, uint64(len(p)/2))
		for i := 0; i+1 < len(p); i += 2 {
			b = bincodec.AppendString(bincodec.AppendString(b, p[i]), p[i+1])
		}
		return b
	}
	b = binary.AppendUvarint(b, uint64(len(h)))
	for k, v := range h {
		b = bincodec.AppendString(bincodec.AppendString(b, k), v)
	}
	return b
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
	d := bincodec.NewDecoder(data[1:])
	r.Seq = d.Uvarint()
	nanos, off := d.Varint(), d.Varint()
	r.At = time.Unix(0, nanos).In(zone(int(off)))
	r.LatencyUs = d.Varint()
	r.Status = int(d.Varint())
	for _, s := range []*string{&r.Kind, &r.Listener, &r.Host, &r.Endpoint, &r.Method, &r.Path, &r.Query, &r.Channel, &r.ChannelID, &r.VirtualID, &r.Reason, &r.Fault, &r.Error} {
		*s = d.String()
	}
	flags := d.Byte()
	if d.Failed() {
		return errCodec
	}
	r.ClientGone, r.ReqTrunc, r.ResTrunc, r.Dropped, r.Unadmitted = flags&1 != 0, flags&2 != 0, flags&4 != 0, flags&8 != 0, flags&16 != 0
	for _, h := range []*map[string]string{&r.ReqHeader, &r.ResHeader} {
		n := d.Uvarint()
		if n > uint64(d.Len()) {
			return errCodec
		}
		if n > 0 {
			*h = make(map[string]string, n)
		}
		for i := uint64(0); i < n && !d.Failed(); i++ {
			k := d.String()
			(*h)[k] = d.String()
		}
	}
	r.ReqBody = nilIfEmpty(d.Bytes())
	r.ResBody = nilIfEmpty(d.Bytes())
	if d.Failed() {
		return errCodec
	}
	r.Limit = r.ResHeader[httpx.LimitHeader]
	return nil
}

func nilIfEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}
