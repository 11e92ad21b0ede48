package state

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// genList makes n values that reach every varint length and both signs.
func genList(r *rand.Rand, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		switch r.IntN(4) {
		case 0:
			out[i] = r.Int64N(300) - 150
		case 1:
			out[i] = r.Int64()
		case 2:
			out[i] = -r.Int64()
		default:
			out[i] = []int64{0, math.MaxInt64, math.MinInt64, 1 << 62, 1779000000000000000}[r.IntN(5)]
		}
	}
	return out
}

// The list codec reads back what JSON reads back for the values it
// writes (the form it replaced).
func TestListCodec_matchesJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 1))
	for i := range 2000 {
		ints := genList(r, r.IntN(12))
		if i%7 == 0 {
			ints = nil
		}
		uints := make([]uint64, len(ints))
		for j, x := range ints {
			uints[j] = uint64(x)
		}
		oldInts, _ := json.Marshal(ints)
		oldUints, _ := json.Marshal(uints)
		var wantInts []int64
		var wantUints []uint64
		if err := json.Unmarshal(oldInts, &wantInts); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(oldUints, &wantUints); err != nil {
			t.Fatal(err)
		}
		for _, raw := range [][]byte{encodeInts(ints)} {
			got, err := decodeInts(raw)
			if err != nil || !slices.Equal(got, wantInts) {
				t.Fatalf("decodeInts(%q) = %v, %v; want %v", raw, got, err, wantInts)
			}
		}
		for _, raw := range [][]byte{encodeUints(uints)} {
			got, err := decodeUints(raw)
			if err != nil || !slices.Equal(got, wantUints) {
				t.Fatalf("decodeUints(%q) = %v, %v; want %v", raw, got, err, wantUints)
			}
		}
	}
}

func TestListCodec_corrupt(t *testing.T) {
	for _, raw := range [][]byte{nil, {}, {0x02, 1}, {listCodecV1, 0x80}, {listCodecV1, 1, 0xff}, []byte("[1,")} {
		if _, err := decodeInts(raw); err == nil {
			t.Errorf("decodeInts(%q): no error", raw)
		}
		if _, err := decodeUints(raw); err == nil {
			t.Errorf("decodeUints(%q): no error", raw)
		}
	}
}
