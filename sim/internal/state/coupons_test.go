package state

import (
	"fmt"
	"sync/atomic"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// BenchmarkClaimCoupon is the store alone: one durable claim per call,
// many claims in flight, so the share of the HTTP stack in
// BenchmarkFetchCouponCode can be told apart.
func BenchmarkClaimCoupon(b *testing.B) {
	s, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var n atomic.Int64
	b.SetParallelism(64)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			user, txn := fmt.Sprint("U", i%1000), fmt.Sprint("T", i)
			// What a claim reads and writes, in one transaction.
			err := s.UpdateCoupons("C", func(tx *CouponTx) error {
				if _, err := tx.Deliveries(txn); err != nil {
					return err
				}
				seq := tx.Issued("O") + 1
				_ = tx.IssuedTo("O", user)
				return tx.Deliver(model.Coupon{Channel: "C", OfferID: "O", VirtualID: user, ExtTransactionID: txn, Seq: seq, Code: fmt.Sprint("X", seq)})
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "claims/s")
}

// A failing function in a group commit fails alone: the others of its
// group are committed.
func TestGroupUpdate_failureIsIsolated(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	errBoom := fmt.Errorf("boom")
	const n = 50
	errs := make(chan error, n)
	for i := range n {
		go func() {
			errs <- s.groupUpdate(func(tx *bolt.Tx) error {
				if i == 7 {
					return errBoom
				}
				return tx.Bucket(bucketCouponStock).Put([]byte(fmt.Sprint("k", i)), []byte("v"))
			})
		}()
	}
	failed := 0
	for range n {
		if err := <-errs; err != nil {
			if err != errBoom {
				t.Fatal(err)
			}
			failed++
		}
	}
	written := 0
	_ = s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketCouponStock).ForEach(func(k, v []byte) error { written++; return nil })
	})
	if failed != 1 || written != n-1 {
		t.Fatalf("%d failed, %d written; want 1 and %d", failed, written, n-1)
	}
}

// clause: SIM-2, CPN-6
func TestCoupons_resetIsPerChannel(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	deliver := func(ch, txn string) error {
		return s.UpdateCoupons(ch, func(tx *CouponTx) error {
			seq := tx.Issued("O") + 1
			return tx.Deliver(model.Coupon{Channel: ch, OfferID: "O", VirtualID: "U", ExtTransactionID: txn, Seq: seq, Code: fmt.Sprint("X", seq)})
		})
	}
	// counts reads what a claim decides on: stock used, the user's count
	// and the extTransactionId's deliveries.
	counts := func(ch, txn string) (issued, mine, delivered int) {
		_ = s.ViewCoupons(ch, func(tx *CouponTx) error {
			d, err := tx.Deliveries(txn)
			issued, mine, delivered = tx.Issued("O"), tx.IssuedTo("O", "U"), len(d)
			return err
		})
		return
	}
	for _, ch := range []string{"A", "AB"} { // "A" is a byte prefix of "AB": keys must not be
		if err := deliver(ch, "T1"); err != nil {
			t.Fatal(err)
		}
		if i, m, d := counts(ch, "T1"); i != 1 || m != 1 || d != 1 {
			t.Fatalf("%s after one delivery: issued %d, user's %d, deliveries of T1 %d; want 1 each", ch, i, m, d)
		}
	}
	if err := s.ResetCoupons("A"); err != nil {
		t.Fatal(err)
	}
	if i, m, d := counts("A", "T1"); i != 0 || m != 0 || d != 0 {
		t.Fatalf("after reset, channel A: issued %d, user's %d, deliveries %d; want none", i, m, d)
	}
	if i, m, d := counts("AB", "T1"); i != 1 || m != 1 || d != 1 {
		t.Fatalf("channel AB was reset too: issued %d, user's %d, deliveries %d", i, m, d)
	}
	if list, _ := s.UserCoupons("AB", "O", "U"); len(list) != 1 {
		t.Fatalf("channel AB has %d coupons, want 1", len(list))
	}
}

// Deliver refuses a coupon of another channel or without its keys: a
// record it cannot find again must never be written.
func TestCouponTx_deliverRefusesIncompleteCoupons(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	good := model.Coupon{Channel: "A", OfferID: "O", VirtualID: "U", ExtTransactionID: "T", Seq: 1}
	for _, c := range []struct {
		name string
		edit func(*model.Coupon)
	}{
		{"other channel", func(c *model.Coupon) { c.Channel = "B" }},
		{"no offer", func(c *model.Coupon) { c.OfferID = "" }},
		{"no extTransactionId", func(c *model.Coupon) { c.ExtTransactionID = "" }},
		{"no sequence", func(c *model.Coupon) { c.Seq = 0 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := good
			c.edit(&bad)
			if err := s.UpdateCoupons("A", func(tx *CouponTx) error { return tx.Deliver(bad) }); err == nil {
				t.Fatalf("Deliver(%+v) succeeded", bad)
			}
		})
	}
	if err := s.UpdateCoupons("", func(*CouponTx) error { return nil }); err == nil {
		t.Error("UpdateCoupons with no channel succeeded")
	}
}
