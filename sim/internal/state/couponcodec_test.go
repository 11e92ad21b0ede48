package state

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Every field of a coupon survives the binary codec, a coupon stored as
// JSON by an older build still reads, and a damaged record is refused.
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
	old, _ := json.Marshal(c)
	var got model.Coupon
	if err := decodeCoupon(old, &got); err != nil || !reflect.DeepEqual(got, c) {
		t.Fatalf("a JSON coupon of an older build: %v\n got %+v", err, got)
	}
	full := encodeCoupon(&c)
	for _, bad := range [][]byte{full[:len(full)-1], append(append([]byte{}, full...), 0), {0x7f}, nil} {
		if err := decodeCoupon(bad, &model.Coupon{}); err == nil {
			t.Errorf("%q read as a coupon", bad)
		}
	}
	entries := []txEntry{{Offer: "O1", Key: []byte{1, 0, 0xff}}, {Offer: "", Key: nil}, {Offer: "O3", Key: []byte("k")}}
	back, err := decodeTxEntries(encodeTxEntries(entries))
	if err != nil || len(back) != len(entries) {
		t.Fatalf("tx entries: %v %+v", err, back)
	}
	for i := range entries {
		if back[i].Offer != entries[i].Offer || string(back[i].Key) != string(entries[i].Key) {
			t.Errorf("tx entry %d: %+v, want %+v", i, back[i], entries[i])
		}
	}
	if _, err := decodeTxEntries(encodeTxEntries(entries)[:4]); err == nil {
		t.Error("a truncated tx record read")
	}
}

// A store written by an older build (coupons and extTransactionId
// records as JSON) keeps working: its coupons list and answer a repeated
// extTransactionId, a new delivery on the same extTransactionId extends
// the old record, and an invalidation rewrites the old coupons.
func TestCoupons_olderJSONRecordsStillRead(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)
	old := model.Coupon{Channel: "C", OfferID: "O", VirtualID: "U", ExtTransactionID: "T", Seq: 1, Code: "X1", OrderID: "ORD-1", URL: "https://h/x", PurchasedAt: at, ValidUntil: at.Add(time.Hour)}
	err = s.db.Update(func(tx *bolt.Tx) error {
		ck := append(key("C", "O", "U"), 0, 0, 0, 0, 0, 0, 0, 1)
		if err := putJSON(tx.Bucket(bucketCoupons), ck, old); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bucketCouponTx), key("C", "T"), []txEntry{{Offer: "O", Key: ck}})
	})
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.UserCoupons("C", "O", "U")
	if err != nil || len(list) != 1 || !reflect.DeepEqual(list[0], old) {
		t.Fatalf("UserCoupons: %v %+v", err, list)
	}
	second := old
	second.OfferID, second.Seq, second.Code = "O2", 1, "Y1"
	var delivered []model.Coupon
	err = s.UpdateCoupons("C", func(tx *CouponTx) error {
		if err := tx.Deliver(second); err != nil {
			return err
		}
		delivered, err = tx.Deliveries("T")
		return err
	})
	if err != nil || len(delivered) != 2 || !reflect.DeepEqual(delivered[0], old) || !reflect.DeepEqual(delivered[1], second) {
		t.Fatalf("Deliveries after a new delivery: %v %+v", err, delivered)
	}
	if n, err := s.InvalidateOffer("C", "O", at, "withdrawn"); err != nil || n != 1 {
		t.Fatalf("InvalidateOffer: %d %v", n, err)
	}
	list, err = s.OfferCoupons("C", "O")
	if err != nil || len(list) != 1 || !list[0].InvalidatedAt.Equal(at) || list[0].InvalidReason != "withdrawn" {
		t.Fatalf("after invalidation: %v %+v", err, list)
	}
	err = s.db.View(func(tx *bolt.Tx) error {
		if raw := tx.Bucket(bucketCoupons).Get(append(key("C", "O", "U"), 0, 0, 0, 0, 0, 0, 0, 1)); len(raw) == 0 || raw[0] != couponCodecV1 {
			t.Errorf("the invalidated coupon is still stored as %q", raw)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
