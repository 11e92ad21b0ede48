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
			_, err := s.ClaimCoupon(ClaimRequest{
				Channel: "C", OfferID: "O", VirtualID: fmt.Sprint("U", i%1000), ExtTransactionID: fmt.Sprint("T", i),
				Stock: 1 << 40, CrossOffer: CrossReject,
				New: func(seq int) model.Coupon { return model.Coupon{Code: fmt.Sprint("X", seq)} },
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
	req := func(ch, tx string) ClaimRequest {
		return ClaimRequest{Channel: ch, OfferID: "O", VirtualID: "U", ExtTransactionID: tx, Stock: 1, CrossOffer: CrossReject,
			New: func(seq int) model.Coupon { return model.Coupon{Code: fmt.Sprint("X", seq)} }}
	}
	for _, ch := range []string{"A", "AB"} { // "A" is a byte prefix of "AB": keys must not be
		if r, err := s.ClaimCoupon(req(ch, "T1")); err != nil || r.Outcome != Delivered {
			t.Fatalf("%s: %+v %v", ch, r, err)
		}
		if r, _ := s.ClaimCoupon(req(ch, "T2")); r.Outcome != Exhausted {
			t.Fatalf("%s: second claim on stock 1: %+v", ch, r)
		}
	}
	if err := s.ResetCoupons("A"); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.ClaimCoupon(req("A", "T2")); r.Outcome != Delivered {
		t.Fatalf("after reset, channel A: %+v", r)
	}
	if r, _ := s.ClaimCoupon(req("AB", "T3")); r.Outcome != Exhausted {
		t.Fatalf("channel AB was reset too: %+v", r)
	}
	if list, _ := s.UserCoupons("AB", "O", "U"); len(list) != 1 {
		t.Fatalf("channel AB has %d coupons, want 1", len(list))
	}
}
