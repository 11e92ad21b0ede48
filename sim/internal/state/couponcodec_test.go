package state

import (
	"encoding/binary"
	"reflect"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

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

// Every field of a coupon click survives the binary codec, a click an
// older file stored as JSON is read, and a damaged record is refused
// (format 3, CPN-8).
func TestCouponClickCodec_everyFieldAndOlderJSON(t *testing.T) {
	var c model.CouponClick
	n := 0
	fillEvery(t, reflect.ValueOf(&c).Elem(), &n)
	for _, want := range []model.CouponClick{c, {Channel: "C", OfferID: "O"}, {}} {
		var got model.CouponClick
		if err := decodeCouponClick(appendCouponClick(nil, &want), &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("binary round trip: %v\n got %+v\nwant %+v", err, got, want)
		}
	}
	old := []byte(`{"channel":"DEMOBANK","offerId":"OFF1","query":"a=1","at":"2026-03-01T10:00:00+09:00"}`)
	var got model.CouponClick
	if err := decodeCouponClick(old, &got); err != nil || got.Channel != "DEMOBANK" || got.OfferID != "OFF1" || got.Query != "a=1" || got.At.Unix() != 1772326800 {
		t.Fatalf("a JSON click: %v %+v", err, got)
	}
	full := appendCouponClick(nil, &c)
	for _, bad := range [][]byte{full[:len(full)-1], append(append([]byte{}, full...), 0), {0x7f}, nil, []byte("{")} {
		if err := decodeCouponClick(bad, &model.CouponClick{}); err == nil {
			t.Errorf("%q read as a click", bad)
		}
	}
}

// A format 2 file's clicks (JSON) are read beside the binary ones this
// build writes, and the file becomes format 3 (CPN-8).
func TestCouponClicks_format2FileRead(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	old := []byte(`{"channel":"C","offerId":"O","query":"old=1","at":"2026-03-01T10:00:00Z"}`)
	if err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketCouponClick)
		n, err := b.NextSequence()
		if err != nil {
			return err
		}
		if err := b.Put(binary.BigEndian.AppendUint64(key("C", "O"), n), old); err != nil {
			return err
		}
		return tx.Bucket([]byte("format")).Put([]byte("version"), []byte("2"))
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(dir, Options{NoSync: true}); err != nil {
		t.Fatalf("a format 2 file: %v", err)
	}
	defer s.Close()
	if err := s.RecordCouponClick(model.CouponClick{Channel: "C", OfferID: "O", Query: "new=1", At: at}); err != nil {
		t.Fatal(err)
	}
	got, err := s.CouponClicks("C", "O")
	if err != nil || len(got) != 2 || got[0].Query != "old=1" || !got[0].At.Equal(at) || got[1].Query != "new=1" || !got[1].At.Equal(at) {
		t.Fatalf("clicks: %v %+v", err, got)
	}
	_ = s.db.View(func(tx *bolt.Tx) error {
		if v := string(tx.Bucket([]byte("format")).Get([]byte("version"))); v != "3" {
			t.Errorf("format after open: %q, want 3", v)
		}
		return nil
	})
}
