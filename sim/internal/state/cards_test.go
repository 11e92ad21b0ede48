package state

import (
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// A channel's reset clears its cards and leaves the others'; "" clears all.
func TestResetCards(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, ch := range []string{"A", "B"} {
		err := s.UpdateCards(ch, func(tx *CardTx) error {
			c := model.Card{Channel: ch, VirtualID: "U"}
			return tx.InsertCard(&c)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	count := func(ch string) int {
		var n int
		_ = s.ViewCards(ch, func(tx *CardTx) error {
			_, n, err = tx.UserCards("U", 0, 10)
			return err
		})
		return n
	}
	if err := s.ResetChannel("A"); err != nil {
		t.Fatal(err)
	}
	if count("A") != 0 || count("B") != 1 {
		t.Fatalf("after reset of A: A=%d B=%d", count("A"), count("B"))
	}
	// Numbering starts afresh in a reset channel.
	var id uint64
	_ = s.UpdateCards("A", func(tx *CardTx) error {
		c := model.Card{Channel: "A", VirtualID: "U"}
		err := tx.InsertCard(&c)
		id = c.RewardID
		return err
	})
	if id != 1 {
		t.Errorf("first card after reset is %d", id)
	}
	if err := s.ResetChannel(""); err != nil {
		t.Fatal(err)
	}
	if count("A") != 0 || count("B") != 0 {
		t.Errorf("after whole reset: A=%d B=%d", count("A"), count("B"))
	}
}
