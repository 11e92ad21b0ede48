package state

import (
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

func capEvents(t *testing.T, s *Store, channel, campaign, user string) []int64 {
	t.Helper()
	var ev []int64
	err := s.ViewCards(channel, func(tx *CardTx) error {
		var err error
		ev, err = tx.CapEvents(campaign, user)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// Cap entries share the user index with the cards' entries; no walk
// of the index counts them as cards, whatever the campaignId's length
// (8 bytes makes a cap key as long as a card key).
func TestCapEvents_NotCards(t *testing.T) {
	for _, campaign := range []string{"C", "CAMP8BYT", "A-LONGER-CAMPAIGN-ID"} {
		t.Run(campaign, func(t *testing.T) {
			s, err := Open(t.TempDir(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			err = s.UpdateCards("A", func(tx *CardTx) error {
				for _, user := range []string{"U", "U2"} {
					if err := tx.SetCapEvents(campaign, user, []int64{1}); err != nil {
						return err
					}
					for range 2 {
						c := model.Card{Channel: "A", VirtualID: user, CampaignID: campaign}
						if err := tx.InsertCard(&c); err != nil {
							return err
						}
					}
				}
				// A user with cap events and no card (cardsPerEvent 0).
				return tx.SetCapEvents(campaign, "W", []int64{1})
			})
			if err != nil {
				t.Fatal(err)
			}
			err = s.ViewCards("A", func(tx *CardTx) error {
				for _, user := range []string{"U", "U2"} {
					cards, total, err := tx.UserCards(user, 0, 10)
					if err != nil || len(cards) != 2 || total != 2 {
						t.Errorf("UserCards(%s): %d cards, total %d, %v", user, len(cards), total, err)
					}
				}
				if _, total, _ := tx.UserCards("W", 0, 10); total != 0 {
					t.Errorf("UserCards(W): total %d", total)
				}
				cards, users := 0, map[string]bool{}
				tx.EachIndexed(func(user []byte, _ bool) { cards, users[string(user)] = cards+1, true })
				if cards != 4 || len(users) != 2 {
					t.Errorf("EachIndexed: %d cards of %v", cards, users)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if cards, total, err := viewAll(s, "A", "U", 0, 10); err != nil || len(cards) != 2 || total != 2 {
				t.Errorf("UserCardPage: %d cards, total %d, %v", len(cards), total, err)
			}
			if n, err := s.Counts(); err != nil || n.CardsIssued != 4 {
				t.Errorf("Counts: %+v, %v", n, err)
			}
		})
	}
}

// A channel's reset forgets its caps.
func TestResetCards_Caps(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.UpdateCards("A", func(tx *CardTx) error { return tx.SetCapEvents("NEW", "U", []int64{2}) }); err != nil {
		t.Fatal(err)
	}
	if err := s.ResetChannel("A"); err != nil {
		t.Fatal(err)
	}
	for _, campaign := range []string{"NEW"} {
		if got := capEvents(t, s, "A", campaign, "U"); got != nil {
			t.Errorf("after reset, %s caps read as %v", campaign, got)
		}
	}
}
