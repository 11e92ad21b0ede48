package state

import (
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Cards issue, list, count and reset per channel, each channel in its
// own top-level buckets. Channels "A" and "AB" check that one channel's
// buckets are never taken for another's.
func TestCards_channelBuckets(t *testing.T) {
	{
		{
			s, err := Open(t.TempDir(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for _, ch := range []string{"A", "AB"} {
				err := s.UpdateCards(ch, func(tx *CardTx) error {
					for _, user := range []string{"U", "V"} {
						c := model.Card{Channel: ch, VirtualID: user}
						if err := tx.InsertCard(&c); err != nil {
							return err
						}
					}
					return tx.SetCapEvents("CAMP", "U", []int64{1})
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			_ = s.db.View(func(tx *bolt.Tx) error {
				for _, ch := range []string{"A", "AB"} {
					if tx.Bucket(flatCardsName(ch, subCard)) == nil {
						t.Errorf("channel %s has no buckets of its own", ch)
					}
				}
				return nil
			})
			users := func(ch string) (n int) {
				t.Helper()
				for _, user := range []string{"U", "V"} {
					cards, total, err := viewAll(s, ch, user, 0, 10)
					if err != nil || len(cards) != total {
						t.Fatalf("UserCardPage(%s, %s): %d cards, total %d, %v", ch, user, len(cards), total, err)
					}
					n += total
				}
				return n
			}
			if a, ab := users("A"), users("AB"); a != 2 || ab != 2 {
				t.Fatalf("before reset: A %d cards, AB %d", a, ab)
			}
			if n, err := s.Counts(); err != nil || n.CardsIssued != 4 {
				t.Errorf("Counts: %+v, %v", n, err)
			}
			if err := s.ResetChannel("A"); err != nil {
				t.Fatal(err)
			}
			if a, ab := users("A"), users("AB"); a != 0 || ab != 2 {
				t.Errorf("after reset of A: A %d cards, AB %d", a, ab)
			}
			if ev := capEvents(t, s, "AB", "CAMP", "U"); len(ev) != 1 {
				t.Errorf("after reset of A, AB's caps read as %v", ev)
			}
			if n, err := s.Counts(); err != nil || n.CardsIssued != 2 {
				t.Errorf("Counts after reset of A: %+v, %v", n, err)
			}
			if err := s.ResetChannel(""); err != nil {
				t.Fatal(err)
			}
			if ab := users("AB"); ab != 0 {
				t.Errorf("after the whole reset: AB %d cards", ab)
			}
			_ = s.db.View(func(tx *bolt.Tx) error {
				if left := flatCardsBuckets(tx, "", nil); len(left) != 0 {
					t.Errorf("after the whole reset, buckets left: %q", left)
				}
				return nil
			})
		}
	}
}
