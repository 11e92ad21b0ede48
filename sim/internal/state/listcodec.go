package state

import "encoding/binary"

// An idempotency record's rewardIds and a frequency cap's issuance times
// are stored as a version byte and varints, not JSON: both are read and
// written inside the group commit, where every call waits for the one
// writer (issue 25).
const listCodecV1 = 0x01

func encodeUints(v []uint64) []byte { return encodeList(v, binary.AppendUvarint) }
func encodeInts(v []int64) []byte   { return encodeList(v, binary.AppendVarint) }

func decodeUints(raw []byte) ([]uint64, error) { return decodeList(raw, binary.Uvarint) }
func decodeInts(raw []byte) ([]int64, error)   { return decodeList(raw, binary.Varint) }

func encodeList[T int64 | uint64](v []T, put func([]byte, T) []byte) []byte {
	b := make([]byte, 1, 1+len(v)*binary.MaxVarintLen64)
	b[0] = listCodecV1
	for _, x := range v {
		b = put(b, x)
	}
	return b
}

func decodeList[T int64 | uint64](raw []byte, next func([]byte) (T, int)) ([]T, error) {
	var out []T
	if len(raw) == 0 || raw[0] != listCodecV1 {
		return nil, errListCodec
	}
	for b := raw[1:]; len(b) > 0; {
		x, n := next(b)
		if n <= 0 {
			return nil, errListCodec
		}
		out, b = append(out, x), b[n:]
	}
	return out, nil
}
