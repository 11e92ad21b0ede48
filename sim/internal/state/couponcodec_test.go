package state

import (
	"reflect"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Every field of a coupon survives the binary codec, and a damaged
// record is refused.
func TestCouponCodec_everyField(t *testing.T) {
	var c model.Coupon
	n := 0
	fillEvery(t, reflect.ValueOf(&c).Elem(), &n)
	for _, want := range []model.Coupon{c, {Channel: "C", OfferID: "O", Seq: -3}, {}} {
		var got model.Coupon
		if err := decodeCoupon(encodeCoupon(&want), &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("binary round trip: %v\n got %+v\nwant %+v", err, got, want)
		}
	}
	full := encodeCoupon(&c)
	for _, bad := range [][]byte{full[:len(full)-1], append(append([]byte{}, full...), 0), {0x7f}, nil} {
		if err := decodeCoupon(bad, &model.Coupon{}); err == nil {
			t.Errorf("%q read as a coupon", bad)
		}
	}
	entries := []txEntry{{Offer: "O1", Key: []byte{1, 0, 0xff}}, {Offer: "", Key: nil}, {Offer: "O3", Key: []byte("k")}}
	back, err := decodeTxEntries(appendTxEntries(nil, entries))
	if err != nil || len(back) != len(entries) {
		t.Fatalf("tx entries: %v %+v", err, back)
	}
	for i := range entries {
		if back[i].Offer != entries[i].Offer || string(back[i].Key) != string(entries[i].Key) {
			t.Errorf("tx entry %d: %+v, want %+v", i, back[i], entries[i])
		}
	}
	if _, err := decodeTxEntries(appendTxEntries(nil, entries)[:4]); err == nil {
		t.Error("a truncated tx record read")
	}
}
