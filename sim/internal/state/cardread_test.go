package state

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// UserCardPage shows what UserCards reads, page by page, each card as
// ViewOf shows it with every time the same instant: over users with a mix
// of unscratched and revealed cards, every optional field set or not,
// times in several zones (a whole-minute offset, an offset with seconds,
// UTC, zero), and a card stored as JSON by an older build.
func TestUserCardPage_sameAsUserCards(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	zones := []*time.Location{time.UTC, time.FixedZone("IST", 5*3600+1800), time.FixedZone("LMT", 5*3600+21*60+10), time.Local}
	var card7 uint64
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
				title := "T ₹50" // needs no escapes: the record says so (OfferVerbatim)
				if i%4 == 1 {
					title = "T\u2028"
				}
				c.Reward = &model.Reward{Offer: model.Offer{OfferTitle: title, Description: "D", Terms: "Te", CouponCode: "CODE",
					EndDate: "E", CouponType: "CT", CouponImage: "/ci", RedeemSteps: "R", BannerDisplayURL: "/b", IconImage: "/i", Details: "De", SiteID: "S",
					SiteName: "SN", CoverImage: "/co", PromoLink: "https://p", BgColor: "#fff"}, EntryID: "E", Fallback: i%2 == 1, RevealedAt: at.Add(time.Minute)}
			}
			if err := tx.InsertCard(&c); err != nil {
				return err
			}
			if i == 7 {
				card7 = c.RewardID
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	marked := 0
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
			got, total, err := viewAll(s, "C", user, page[0], page[1])
			if err != nil {
				t.Fatal(err)
			}
			if total != wantTotal || len(got) != len(want) {
				t.Fatalf("%s %v: %d cards of %d, want %d of %d", user, page, len(got), total, len(want), wantTotal)
			}
			for i := range want {
				w := model.BytesView(model.ViewOf(&want[i]))
				if !got[i].CreatedAt.Equal(w.CreatedAt) {
					t.Errorf("%s %v card %d: created %v, want %v", user, page, i, got[i].CreatedAt, w.CreatedAt)
				}
				if !sameView(got[i], w) {
					t.Errorf("%s %v card %d:\n got %+v\nwant %+v", user, page, i, got[i], w)
				}
				// Marked when the offer needs no escapes.
				wantMark := w.Revealed && string(w.Offer[0]) != "T\u2028"
				if got[i].OfferVerbatim != wantMark {
					t.Errorf("%s %v card %d (%q): OfferVerbatim %v, want %v", user, page, i, w.Offer[0], got[i].OfferVerbatim, wantMark)
				}
				if got[i].OfferVerbatim {
					marked++
				}
			}
		}
	}
	if marked == 0 {
		t.Error("no card was marked as needing no escapes")
	}
	if got, total, err := viewAll(s, "no-such-channel", "U0", 0, 10); err != nil || total != 0 || len(got) != 0 {
		t.Errorf("a channel without cards: %v %d %v", got, total, err)
	}
	// A record that does not decode is an error, not a page without it.
	err = s.db.Update(func(tx *bolt.Tx) error {
		b := openCards(tx, "C").sub(subCard)
		raw := b.Get(cardKey64(card7 + 1))
		return b.Put(cardKey64(card7+1), append(append([]byte{}, raw...), 0))
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := viewAll(s, "C", "U2", 0, 100); err == nil {
		t.Error("a corrupt record was shown")
	}
}

// sameView: equal, times compared as instants, an empty string nil or not.
func sameView(a, b model.CardView[[]byte]) bool {
	if a.RewardID != b.RewardID || a.Revealed != b.Revealed || !a.CreatedAt.Equal(b.CreatedAt) || !bytes.Equal(a.Channel, b.Channel) {
		return false
	}
	for i := range a.Offer {
		if !bytes.Equal(a.Offer[i], b.Offer[i]) {
			return false
		}
	}
	return true
}

// viewAll is UserCardPage's page, its views' bytes copied out.
func viewAll(s *Store, channel, user string, offset, limit int) (page []model.CardView[[]byte], total int, err error) {
	p, err := s.UserCardPage(channel, user, offset, limit)
	if err != nil {
		return nil, 0, err
	}
	defer p.Release()
	for _, v := range p.Views {
		c := v
		c.Channel = bytes.Clone(v.Channel)
		for i := range c.Offer {
			c.Offer[i] = bytes.Clone(v.Offer[i])
		}
		page = append(page, c)
	}
	return page, p.Total, nil
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
