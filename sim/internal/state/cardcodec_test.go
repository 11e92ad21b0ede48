package state

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// fillEvery sets every field reachable from v to a distinct non-zero
// value, so a field the codec forgets cannot round-trip.
func fillEvery(t *testing.T, v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Uint64, reflect.Uint32, reflect.Uint:
		v.SetUint(uint64(*n))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.25)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillEvery(t, v.Elem(), n)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for i := range 3 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fillEvery(t, k, n)
			fillEvery(t, e, n)
			_ = i
			v.SetMapIndex(k, e)
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, *n, time.UTC)))
			return
		}
		for i := range v.NumField() {
			fillEvery(t, v.Field(i), n)
		}
	default:
		t.Fatalf("fillEvery: no case for %s: add one, and the field to the card codec", v.Type())
	}
}

// Every field of a card survives the binary codec.
func TestCardCodec_everyField(t *testing.T) {
	var c model.Card
	n := 0
	fillEvery(t, reflect.ValueOf(&c).Elem(), &n)
	var got model.Card
	if err := decodeCard(encodeCard(&c), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, c) {
		t.Fatalf("binary round trip:\n got %+v\nwant %+v", got, c)
	}
	// The smallest card: no amount, params, reward or expiry.
	small := model.Card{RewardID: 7, Channel: "C", CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	got = model.Card{}
	if err := decodeCard(encodeCard(&small), &got); err != nil || !reflect.DeepEqual(got, small) {
		t.Fatalf("small card: %v\n got %+v", err, got)
	}
	// Truncated or grown records are refused, never half-read.
	full := encodeCard(&c)
	for _, bad := range [][]byte{full[:len(full)-1], append(append([]byte{}, full...), 0), {0x7f}, nil} {
		if err := decodeCard(bad, &model.Card{}); err == nil {
			t.Errorf("decodeCard(%d bytes) accepted a corrupt record", len(bad))
		}
		if err := viewCard(bad, &model.CardView[[]byte]{}); err == nil {
			t.Errorf("viewCard(%d bytes) accepted a corrupt record", len(bad))
		}
	}
	// The listing's view of a record is ViewOf the card, revealed or not.
	for _, card := range []model.Card{c, small} {
		var v model.CardView[[]byte]
		if err := viewCard(encodeCard(&card), &v); err != nil {
			t.Fatal(err)
		}
		if want := model.BytesView(model.ViewOf(&card)); !sameView(v, want) {
			t.Errorf("viewCard:\n got %+v\nwant %+v", v, want)
		}
	}
}

// The listing's view reads a string's length of one byte in place and a
// longer one as a varint: lengths on both sides of 128 read back as they
// were, and every truncation of the record is refused, never half-read.
func TestViewCard_lengthsAroundOneByte(t *testing.T) {
	for _, n := range []int{0, 1, 126, 127, 128, 129, 255, 300, 16383, 16384} {
		s := strings.Repeat("x", n)
		c := model.Card{RewardID: 300, Channel: s, VirtualID: s, CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
			Reward: &model.Reward{Offer: model.Offer{OfferTitle: s, Terms: s + "y", BgColor: "#fff"}, EntryID: s}}
		raw := encodeCard(&c)
		var v model.CardView[[]byte]
		if err := viewCard(raw, &v); err != nil {
			t.Fatalf("length %d: %v", n, err)
		}
		if want := model.BytesView(model.ViewOf(&c)); !sameView(v, want) {
			t.Errorf("length %d:\n got %+v\nwant %+v", n, v, want)
		}
		for cut := range len(raw) {
			if err := viewCard(raw[:cut], &model.CardView[[]byte]{}); err == nil {
				t.Fatalf("length %d: a record cut to %d of %d bytes was read", n, cut, len(raw))
			}
		}
	}
}

func BenchmarkCardDecode(b *testing.B) {
	var c model.Card
	n := 0
	fillEvery(&testing.T{}, reflect.ValueOf(&c).Elem(), &n)
	raw := encodeCard(&c)
	b.ReportAllocs()
	for b.Loop() {
		var got model.Card
		if err := decodeCard(raw, &got); err != nil {
			b.Fatal(err)
		}
	}
}
