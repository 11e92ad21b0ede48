package state

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// ListUserCards reads what UserCards reads, page by page, with every
// time the same instant: over users with a mix of unscratched and
// revealed cards, every optional field set or not, times in several
// zones (a whole-minute offset, an offset with seconds, UTC, zero), and a
// card stored as JSON by an older build.
func TestListUserCards_sameAsUserCards(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	zones := []*time.Location{time.UTC, time.FixedZone("IST", 5*3600+1800), time.FixedZone("LMT", 5*3600+21*60+10), time.Local}
	var jsonID uint64
	err = s.UpdateCards("C", func(tx *CardTx) error {
		for i := range 40 {
			at := time.Date(2026, 1, 15, 10, 0, i, i*1000, zones[i%len(zones)])
			c := model.Card{Channel: "C", VirtualID: fmt.Sprintf("U%d", i%3), CampaignID: "CAMP", Pool: "P", Source: "GetReward",
				ExtTransactionID: fmt.Sprintf("X%d", i), CreatedAt: at}
			if i%2 == 0 {
				a := float64(i) + 0.5
				c.Amount, c.Trigger, c.SubTrigger, c.DateAndTime = &a, "UPI", "P2M", "15012026100000"
				c.Params = map[string]string{"k": "v", "é": "<&>"}
				c.ExpiresAt = at.Add(time.Hour)
			}
			if i%3 == 1 {
				c.Reward = &model.Reward{Offer: model.Offer{OfferTitle: "T\u2028", CouponCode: "CODE"}, EntryID: "E", Fallback: i%2 == 1, RevealedAt: at.Add(time.Minute)}
			}
			if err := tx.InsertCard(&c); err != nil {
				return err
			}
			if i == 7 {
				jsonID = c.RewardID
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// An older build stored card 7 as JSON.
	err = s.db.Update(func(tx *bolt.Tx) error {
		b := openCards(tx, "C").sub(subCard)
		var c model.Card
		if err := decodeCard(b.Get(cardKey64(jsonID)), &c); err != nil {
			return err
		}
		raw, _ := json.Marshal(c)
		return b.Put(cardKey64(jsonID), raw)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, user := range []string{"U0", "U1", "U2", "U", "nobody"} {
		for _, page := range [][2]int{{0, 10}, {0, 100}, {3, 4}, {10, 10}, {12, 1}, {50, 10}} {
			var want []model.Card
			var wantTotal int
			err := s.ViewCards("C", func(tx *CardTx) (err error) {
				want, wantTotal, err = tx.UserCards(user, page[0], page[1])
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			got, total, err := s.ListUserCards("C", user, page[0], page[1])
			if err != nil {
				t.Fatal(err)
			}
			if total != wantTotal || len(got) != len(want) {
				t.Fatalf("%s %v: %d cards of %d, want %d of %d", user, page, len(got), total, len(want), wantTotal)
			}
			for i := range want {
				if !sameCard(got[i], want[i]) {
					t.Errorf("%s %v card %d:\n got %+v\nwant %+v", user, page, i, got[i], want[i])
				}
			}
		}
	}
	if got, total, err := s.ListUserCards("no-such-channel", "U0", 0, 10); err != nil || total != 0 || len(got) != 0 {
		t.Errorf("a channel without cards: %v %d %v", got, total, err)
	}
}

// sameCard: equal, times compared as instants.
func sameCard(a, b model.Card) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) || !a.ExpiresAt.Equal(b.ExpiresAt) || a.ExpiresAt.IsZero() != b.ExpiresAt.IsZero() {
		return false
	}
	a.CreatedAt, a.ExpiresAt, b.CreatedAt, b.ExpiresAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if (a.Reward == nil) != (b.Reward == nil) {
		return false
	}
	if a.Reward != nil {
		ra, rb := *a.Reward, *b.Reward
		if !ra.RevealedAt.Equal(rb.RevealedAt) {
			return false
		}
		ra.RevealedAt, rb.RevealedAt = time.Time{}, time.Time{}
		a.Reward, b.Reward = &ra, &rb
	}
	return reflect.DeepEqual(a, b)
}

// instant reads the instant of every binary time, and refuses what
// time.Time.UnmarshalBinary refuses for its length or version.
func TestInstant(t *testing.T) {
	for _, at := range []time.Time{{}, time.Unix(0, 0), time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC), time.Date(2026, 11, 24, 9, 58, 1, 999999999, time.FixedZone("", -(3*3600+30*60+7))),
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.FixedZone("", 14*3600)), time.Date(1900, 2, 28, 0, 0, 0, 5, time.Local)} {
		raw, err := at.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		got, ok := instant(raw)
		if !ok || !got.Equal(at) || got.IsZero() != at.IsZero() || got.Location() != time.UTC {
			t.Errorf("instant(%v) = %v, %v", at, got, ok)
		}
		for _, bad := range [][]byte{raw[:len(raw)-1], append(append([]byte{}, raw...), 0), append([]byte{3}, raw[1:]...)} {
			if _, ok := instant(bad); ok {
				t.Errorf("instant accepted %x", bad)
			}
		}
	}
}
