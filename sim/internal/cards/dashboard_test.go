package cards

import (
	"reflect"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/state"
)

// dashboardStore holds cards of two channels: in A, user U has a
// revealed CAMP card (two impressions and a click tracked) and an
// unscratched one, user V an unscratched ZED card (one impression) and
// cap events, user W cap events only; in B, a revealed CAMP card.
func dashboardStore(t *testing.T) *Service {
	st, err := state.Open(t.TempDir(), state.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	add := func(channel, user, campaign string, revealed bool, tracks ...string) {
		t.Helper()
		err := st.UpdateCards(channel, func(tx *state.CardTx) error {
			c := model.Card{Channel: channel, VirtualID: user, CampaignID: campaign, CreatedAt: t0}
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
			return tx.SetCapEvents(campaign, user, []int64{1})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	add("A", "V", "ZED", false, Impression)
	add("A", "U", "CAMP", true, Impression, Impression, Click)
	add("A", "U", "CAMP", false)
	add("B", "U", "CAMP", true, Click)
	if err := st.UpdateCards("A", func(tx *state.CardTx) error { return tx.SetCapEvents("CAMP", "W", []int64{1}) }); err != nil {
		t.Fatal(err)
	}
	return &Service{Store: st}
}

// The funnel counts each campaign's cards issued and revealed and each
// tracking GET by kind, per channel, campaigns in id order.
func TestFunnel(t *testing.T) {
	s := dashboardStore(t)
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

// The summary counts a channel's cards per user by state, up to a limit
// of users (a user with cap events only has no cards), and its tracking
// GETs by kind.
func TestSummary(t *testing.T) {
	s := dashboardStore(t)
	for _, c := range []struct {
		max  int
		want Summary
	}{
		{10, Summary{Users: []UserCards{{"U", 1, 1}, {"V", 1, 0}}, Cards: 3, Tracks: map[string]int{Impression: 3, Click: 1}}},
		{1, Summary{Users: []UserCards{{"U", 1, 1}}, MoreUsers: true, Cards: 3, Tracks: map[string]int{Impression: 3, Click: 1}}},
	} {
		got, err := s.Summary("A", c.max)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Summary(A, %d) = %+v, %v; want %+v", c.max, got, err, c.want)
		}
	}
	if got, err := s.Summary("NONE", 10); err != nil || got.Cards != 0 || len(got.Users) != 0 {
		t.Errorf("Summary of a channel without cards = %+v, %v", got, err)
	}
}
