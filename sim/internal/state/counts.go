package state

import (
	"encoding/binary"

	bolt "go.etcd.io/bbolt"
)

// Counts are store-wide totals, for the metrics.
type Counts struct {
	CardsIssued, CardsRevealed int
	CouponsClaimed             int
}

// Counts walks every channel's card user index and coupon stock counters
// in one read transaction. It costs what the store holds: a scrape, not
// a request path.
func (s *Store) Counts() (Counts, error) {
	var out Counts
	err := s.db.View(func(tx *bolt.Tx) error {
		// Every channel's user index (cards.go).
		for _, name := range flatCardsBuckets(tx, "", subUser) {
			err := tx.Bucket(name).ForEach(func(k, _ []byte) error {
				if _, st, ok := indexedCard(k); ok {
					out.CardsIssued++
					if st == stateRevealed {
						out.CardsRevealed++
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return tx.Bucket(bucketCouponStock).ForEach(func(_, v []byte) error {
			if len(v) == 8 {
				out.CouponsClaimed += int(binary.BigEndian.Uint64(v))
			}
			return nil
		})
	})
	return out, err
}

// Size is the state file's size in bytes.
func (s *Store) Size() (int64, error) {
	var n int64
	err := s.db.View(func(tx *bolt.Tx) error {
		n = tx.Size()
		return nil
	})
	return n, err
}
