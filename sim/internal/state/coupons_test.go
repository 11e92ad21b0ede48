package state

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// BenchmarkClaimCoupon is the store alone: one claim per call, a new
// user and extTransactionId each (as make load's
// fetchCouponCode-new-claim), many claims in flight into a store already
// holding claims, so the share of the HTTP stack in
// BenchmarkFetchCouponCode can be told apart. pages/claim is what each
// claim writes to the file (bbolt's TxStats), the figure a layout change
// moves.
func BenchmarkClaimCoupon(b *testing.B) {
	s, err := Open(b.TempDir(), Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var n atomic.Int64
	claim := func() error {
		i := n.Add(1)
		user, txn := fmt.Sprint("CP-bench-", i), fmt.Sprint("CPT-bench-", i)
		// What a claim reads and writes, in one transaction.
		return s.UpdateCoupons("DEMOBANK", func(tx *CouponTx) error {
			if _, err := tx.Deliveries(txn); err != nil {
				return err
			}
			seq := tx.Issued("OFFER-DEMO") + 1
			_ = tx.IssuedTo("OFFER-DEMO", user)
			return tx.Deliver(model.Coupon{
				Channel: "DEMOBANK", OfferID: "OFFER-DEMO", VirtualID: user, ExtTransactionID: txn, Seq: seq,
				Code: fmt.Sprintf("DEMO-%06d", seq), OrderID: fmt.Sprintf("ORD-OFFER-DEMO-%06d", seq),
				URL:         "http://127.0.0.1:8080/__sim/coupon/DEMOBANK/OFFER-DEMO?utm_source=rewardsim&vid=" + user,
				PurchasedAt: time.Unix(1700000000, 0), ValidUntil: time.Unix(1800000000, 0),
			})
		})
	}
	benchWrites(b, s, "claim", 200, claim)
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
	if err := s.ResetChannel("A"); err != nil {
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

// IssuedTo counts a user's coupon records of an offer: never another
// user's or another offer's, even where one name is a byte prefix of the
// other, nor the user's coupons of the channel's other offers.
func TestCoupons_issuedToCountsTheUsersRecords(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	deliveries := []struct{ offer, user string }{
		{"O", "U"}, {"O", "U"}, {"O", "UV"}, {"OP", "U"}, {"OP", "U"}, {"OP", "U"}, {"O", "V"},
	}
	for i, d := range deliveries {
		err := s.UpdateCoupons("C", func(tx *CouponTx) error {
			seq := tx.Issued(d.offer) + 1
			return tx.Deliver(model.Coupon{Channel: "C", OfferID: d.offer, VirtualID: d.user, ExtTransactionID: fmt.Sprint("T", i), Seq: seq})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		offer, user string
		want        int
	}{
		{"O", "U", 2}, {"O", "UV", 1}, {"O", "V", 1}, {"OP", "U", 3}, {"OP", "UV", 0}, {"O", "W", 0}, {"Q", "U", 0},
	}
	_ = s.ViewCoupons("C", func(tx *CouponTx) error {
		for _, tc := range tests {
			if got := tx.IssuedTo(tc.offer, tc.user); got != tc.want {
				t.Errorf("IssuedTo(%s, %s) = %d, want %d", tc.offer, tc.user, got, tc.want)
			}
		}
		return nil
	})
}

// Deliver counts and records right whether or not the call read the
// offer's count and the extTransactionId's deliveries first (what it
// read is reused), and when one extTransactionId delivers on several
// offers, in one transaction or in several.
func TestCoupons_deliverWithAndWithoutReadingFirst(t *testing.T) {
	type step struct {
		offer     string
		readFirst bool // Issued and Deliveries before Deliver
	}
	tests := []struct {
		name  string
		calls [][]step // one transaction each
	}{
		{"read first, one offer per call", [][]step{{{"O", true}}, {{"P", true}}, {{"O", true}}}},
		{"not read first", [][]step{{{"O", false}}, {{"P", false}}, {{"O", false}}}},
		{"three offers in one call, read first", [][]step{{{"O", true}, {"P", true}, {"O", true}}}},
		{"three offers in one call, not read first", [][]step{{{"O", false}, {"P", false}, {"O", false}}}},
		{"mixed", [][]step{{{"O", true}, {"P", false}}, {{"O", false}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(t.TempDir(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var want []string // offers delivered to T, in order
			for _, call := range tc.calls {
				err := s.UpdateCoupons("C", func(tx *CouponTx) error {
					for _, st := range call {
						seq := 0
						if st.readFirst {
							if _, err := tx.Deliveries("T"); err != nil {
								return err
							}
							seq = tx.Issued(st.offer) + 1
						} else {
							// The count, read on another transaction value, not this one's.
							seq = (&CouponTx{tx: tx.tx, channel: "C", h: newCouponHandles(tx.tx)}).Issued(st.offer) + 1
						}
						if err := tx.Deliver(model.Coupon{Channel: "C", OfferID: st.offer, VirtualID: "U", ExtTransactionID: "T", Seq: seq}); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				for _, st := range call {
					want = append(want, st.offer)
				}
			}
			_ = s.ViewCoupons("C", func(tx *CouponTx) error {
				got, err := tx.Deliveries("T")
				if err != nil || len(got) != len(want) {
					t.Fatalf("Deliveries(T): %d coupons, %v; want %d", len(got), err, len(want))
				}
				perOffer := map[string]int{}
				for i, c := range got {
					perOffer[c.OfferID]++
					if c.OfferID != want[i] || c.Seq != perOffer[c.OfferID] {
						t.Errorf("delivery %d: offer %s seq %d, want offer %s seq %d", i, c.OfferID, c.Seq, want[i], perOffer[c.OfferID])
					}
				}
				for offer, n := range perOffer {
					if tx.Issued(offer) != n || tx.IssuedTo(offer, "U") != n {
						t.Errorf("offer %s: issued %d, to U %d; want %d", offer, tx.Issued(offer), tx.IssuedTo(offer, "U"), n)
					}
				}
				return nil
			})
		})
	}
}

// A group commit's coupon handles end with its transaction: nothing of
// a committed transaction stays reachable from the store, and the next
// claims, in groups of their own, see what the first committed.
func TestUpdateCoupons_handlesEndWithTheirCommit(t *testing.T) {
	s, err := Open(t.TempDir(), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 3 {
		err := s.UpdateCoupons("DEMOBANK", func(tx *CouponTx) error {
			if s.couponH == nil || s.couponH.tx == nil {
				t.Fatal("no handles inside the transaction")
			}
			if got := tx.Issued("OFFER-T"); got != i {
				t.Fatalf("claim %d: offer issued %d before it", i, got)
			}
			return tx.Deliver(model.Coupon{Channel: "DEMOBANK", OfferID: "OFFER-T", VirtualID: fmt.Sprint("U", i),
				ExtTransactionID: fmt.Sprint("T", i), Code: fmt.Sprint("CODE-", i), Seq: i + 1})
		})
		if err != nil {
			t.Fatal(err)
		}
		if s.couponH != nil {
			t.Fatalf("after commit %d the store still holds its coupon handles", i)
		}
	}
}
