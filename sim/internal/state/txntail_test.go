package state

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// issueTxn stores a card of user for extTransactionId txn in its own
// transaction, recorded under it unless once is false (a resend that is
// not idempotent), and returns its rewardId.
func issueTxn(t *testing.T, s *Store, txn string, once bool) uint64 {
	t.Helper()
	var id uint64
	err := s.UpdateCards("C", func(tx *CardTx) error {
		c := model.Card{Channel: "C", VirtualID: "U-" + txn, Source: "UPI", ExtTransactionID: txn}
		if err := tx.InsertCard(&c); err != nil {
			return err
		}
		id = c.RewardID
		if !once {
			return nil
		}
		return tx.SetIssued("UPI", txn, []uint64{id})
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func issuedIDs(t *testing.T, s *Store, txn string) ([]uint64, bool) {
	t.Helper()
	var ids []uint64
	var ok bool
	err := s.UpdateCards("C", func(tx *CardTx) error {
		var err error
		ids, ok, err = tx.Issued("UPI", txn)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids, ok
}

// Idempotency records held in memory (txntail.go) are found again after
// the store is reopened, the process's memory gone, as a kill leaves it:
// before a merge, across one, after a reveal; a card stored without its
// record stays without one.
func TestTxnTail_survivesReopen(t *testing.T) {
	for _, n := range []int{3, mergeAt - 1, mergeAt + 5, 2*mergeAt + 1} {
		t.Run(fmt.Sprint(n, " cards"), func(t *testing.T) {
			dir := t.TempDir()
			s, err := Open(dir, Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]uint64{}
			for from := 0; from < n; from += 100 { // 100 cards a commit
				if err := s.UpdateCards("C", func(tx *CardTx) error {
					for i := range min(from+100, n) {
						txn := fmt.Sprint("T", i)
						if i < from {
							continue
						}
						c := model.Card{Channel: "C", VirtualID: "U-" + txn, Source: "UPI", ExtTransactionID: txn}
						if err := tx.InsertCard(&c); err != nil {
							return err
						}
						if i%7 == 3 { // not idempotent: no record
							continue
						}
						if err := tx.SetIssued("UPI", txn, []uint64{c.RewardID}); err != nil {
							return err
						}
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			for i := range n {
				if i%7 != 3 {
					want[fmt.Sprint("T", i)] = uint64(i + 1)
				}
			}
			// A reveal rewrites the last card: its mark stays.
			last := fmt.Sprint("T", n-1)
			if err := s.UpdateCards("C", func(tx *CardTx) error {
				c, ok, err := tx.Card(want[last])
				if err != nil || !ok {
					return fmt.Errorf("card %d: %v %v", want[last], ok, err)
				}
				c.Reward = &model.Reward{EntryID: "E"}
				return tx.SaveReveal(c)
			}); err != nil {
				t.Fatal(err)
			}
			s.Close()
			if s, err = Open(dir, Options{NoSync: true}); err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			err = s.UpdateCards("C", func(tx *CardTx) error {
				for i := range n {
					txn := fmt.Sprint("T", i)
					ids, ok, err := tx.Issued("UPI", txn)
					if err != nil {
						return err
					}
					id, recorded := want[txn]
					if ok != recorded || ok && !slices.Equal(ids, []uint64{id}) {
						t.Errorf("%s after reopen: %v %v, want %v %v", txn, ids, ok, id, recorded)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A rolled-back transaction's record, and a reset channel's, are not
// found: the tail is checked against the file before each use.
func TestTxnTail_rollbackAndReset(t *testing.T) {
	s, err := Open(t.TempDir(), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	issueTxn(t, s, "KEPT", true)
	failed := errors.New("refused")
	err = s.UpdateCards("C", func(tx *CardTx) error {
		c := model.Card{Channel: "C", VirtualID: "U", Source: "UPI", ExtTransactionID: "GONE"}
		if err := tx.InsertCard(&c); err != nil {
			return err
		}
		if err := tx.SetIssued("UPI", "GONE", []uint64{c.RewardID}); err != nil {
			return err
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("UpdateCards = %v", err)
	}
	if ids, ok := issuedIDs(t, s, "GONE"); ok {
		t.Errorf("a rolled-back record is found: %v", ids)
	}
	if _, ok := issuedIDs(t, s, "KEPT"); !ok {
		t.Error("the committed record is lost after a rollback")
	}
	if err := s.ResetChannel("C"); err != nil {
		t.Fatal(err)
	}
	if ids, ok := issuedIDs(t, s, "KEPT"); ok {
		t.Errorf("a reset channel's record is found: %v", ids)
	}
	if id := issueTxn(t, s, "AFTER", true); id != 1 {
		t.Errorf("first card after the reset: %d", id)
	}
	if ids, ok := issuedIDs(t, s, "AFTER"); !ok || !slices.Equal(ids, []uint64{1}) {
		t.Errorf("record after the reset: %v %v", ids, ok)
	}
}

// A file of format 1 kept every record in the txn bucket, whose
// sequence it left at 0: its records are read from there, not sought in
// its cards, and new ones are kept as format 2 keeps them.
func TestTxnTail_format1File(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	// Cards as format 1 stored them: no mark, the record in the bucket.
	if err := s.UpdateCards("C", func(tx *CardTx) error {
		for i := range 3 {
			c := model.Card{Channel: "C", VirtualID: "U", Source: "UPI", ExtTransactionID: fmt.Sprint("OLD", i)}
			if err := tx.InsertCard(&c); err != nil {
				return err
			}
			if err := tx.sub(subTxn).Put([]byte(txnKey("UPI", c.ExtTransactionID)), encodeUints([]uint64{c.RewardID})); err != nil {
				return err
			}
		}
		return tx.sub(subTxn).SetSequence(0)
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("format")).Put([]byte("version"), []byte("1")) }); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(dir, Options{NoSync: true}); err != nil {
		t.Fatalf("a format 1 file: %v", err)
	}
	defer s.Close()
	for i := range 3 {
		if ids, ok := issuedIDs(t, s, fmt.Sprint("OLD", i)); !ok || !slices.Equal(ids, []uint64{uint64(i + 1)}) {
			t.Errorf("OLD%d: %v %v", i, ids, ok)
		}
	}
	id := issueTxn(t, s, "NEW", true)
	if ids, ok := issuedIDs(t, s, "NEW"); !ok || !slices.Equal(ids, []uint64{id}) {
		t.Errorf("NEW: %v %v, want %d", ids, ok, id)
	}
	s.txnTails.forget() // as a restart leaves it
	if ids, ok := issuedIDs(t, s, "NEW"); !ok || !slices.Equal(ids, []uint64{id}) {
		t.Errorf("NEW read back from its card: %v %v, want %d", ids, ok, id)
	}
	if ids, ok := issuedIDs(t, s, "OLD0"); !ok || !slices.Equal(ids, []uint64{1}) {
		t.Errorf("OLD0 after the tail is read back: %v %v", ids, ok)
	}
}
