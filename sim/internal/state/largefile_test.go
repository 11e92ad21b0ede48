package state

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// `make load` measures start-up on a large state file made here:
//
//	go test ./sim/internal/state -run TestLargeStateFile -large-state DIR -large-state-bytes 1073741824
var (
	largeState      = flag.String("large-state", "", "write a large state file into this folder (make load's start-up on a 1 GB file)")
	largeStateBytes = flag.Int64("large-state-bytes", 1<<30, "with -large-state, the size to grow its file to")
)

// TestLargeStateFile fills a state file with GetReward-shaped cards, each
// with its idempotency record and user index entry, in large commits,
// until the file reaches -large-state-bytes. It runs only when asked.
func TestLargeStateFile(t *testing.T) {
	if *largeState == "" {
		t.Skip("writes a large state file only with -large-state DIR")
	}
	s, err := Open(*largeState, Options{NoSync: true, NoGrowSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	path := filepath.Join(*largeState, FileName)
	amount := 100.0
	at := time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)
	n := 0
	for {
		if fi, err := os.Stat(path); err != nil {
			t.Fatal(err)
		} else if fi.Size() >= *largeStateBytes {
			t.Logf("%s: %d bytes, %d cards", path, fi.Size(), n)
			return
		}
		err := s.UpdateCards("DEMOBANK", func(tx *CardTx) error {
			for i := range 20000 {
				k := n + i
				c := model.Card{Channel: "DEMOBANK", VirtualID: fmt.Sprintf("LARGE-%x-%d", k/3, k%7), CampaignID: "CAMP-DEMO", Pool: "default",
					Source: "GetReward", ExtTransactionID: fmt.Sprintf("LARGE-T-%d", k), Trigger: "UPI", Amount: &amount,
					DateAndTime: "15012026100000", CreatedAt: at, ExpiresAt: at.AddDate(0, 1, 0)}
				if err := tx.InsertCard(&c); err != nil {
					return err
				}
				if err := tx.SetIssued("GetReward", c.ExtTransactionID, []uint64{c.RewardID}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		n += 20000
	}
}
