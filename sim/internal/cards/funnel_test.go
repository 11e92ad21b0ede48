package cards

import (
	"reflect"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/state"
)

// The funnel counts each campaign's cards issued and revealed and each
// tracking GET by kind, per channel, campaigns in id order.
func TestFunnel(t *testing.T) {
	st, err := state.Open(t.TempDir(), state.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := &Service{Store: st}
	add := func(channel, campaign string, revealed bool, tracks ...string) {
		t.Helper()
		err := st.UpdateCards(channel, func(tx *state.CardTx) error {
			c := model.Card{Channel: channel, VirtualID: "U", CampaignID: campaign, CreatedAt: t0}
			if revealed {
				c.Reward = &model.Reward{EntryID: "E", RevealedAt: t0}
			}
			if err := tx.InsertCard(&c); err != nil {
				return err
			}
			for _, kind := range tracks {
				if err := tx.AddTrack(model.TrackEvent{RewardID: c.RewardID, Kind: kind, At: t0}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	add("A", "ZED", false, Impression)
	add("A", "CAMP", true, Impression, Impression, Click)
	add("A", "CAMP", false)
	add("B", "CAMP", true, Click) // another channel's
	got, err := s.Funnel("A")
	want := []CampaignFunnel{
		{Campaign: "CAMP", Issued: 2, Impressions: 2, Clicks: 1, Revealed: 1},
		{Campaign: "ZED", Issued: 1, Impressions: 1},
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Funnel(A) = %+v, %v; want %+v", got, err, want)
	}
	if got, err := s.Funnel("NONE"); err != nil || len(got) != 0 {
		t.Errorf("Funnel of a channel without cards = %+v, %v", got, err)
	}
}
