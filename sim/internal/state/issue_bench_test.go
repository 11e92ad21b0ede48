package state

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// BenchmarkIssueCard is the store alone for make load's
// GetReward-new-card: per call, what a GetReward of a new user reads and
// writes in its transaction (the idempotency record, the cap events, a
// new card), many calls in flight into a store already holding cards.
// pages/card is what each card writes to the file (bbolt's TxStats),
// the figure a layout change moves.
func BenchmarkIssueCard(b *testing.B) {
	s, err := Open(b.TempDir(), Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var n atomic.Int64
	now := time.Unix(1700000000, 0)
	issue := func() error {
		i := n.Add(1)
		user, txn := fmt.Sprint("GR-bench-", i), fmt.Sprint("GRT-bench-", i)
		return s.UpdateCards("DEMOBANK", func(tx *CardTx) error {
			if _, ok, err := tx.Issued("UPI", txn); err != nil || ok {
				return err
			}
			ev, err := tx.CapEvents("CAMP-DEMO", user)
			if err != nil {
				return err
			}
			if err := tx.SetCapEvents("CAMP-DEMO", user, append(ev, now.UnixNano())); err != nil {
				return err
			}
			amount := 100.0
			c := model.Card{Channel: "DEMOBANK", VirtualID: user, CampaignID: "CAMP-DEMO", Pool: "DEMO-POOL", Source: "UPI",
				ExtTransactionID: txn, Trigger: "UPI", Amount: &amount, DateAndTime: "15012026100000", CreatedAt: now, ExpiresAt: now.Add(720 * time.Hour)}
			if err := tx.InsertCard(&c); err != nil {
				return err
			}
			return tx.SetIssued("UPI", txn, []uint64{c.RewardID})
		})
	}
	benchWrites(b, s, "card", 400, issue)
}
