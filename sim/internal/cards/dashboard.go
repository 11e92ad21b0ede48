package cards

import (
	"sort"

	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/state"
)

// The control dashboard's reads of a channel's cards. Each walks what
// the channel holds: a dashboard read, not a request path.

// UserCards counts one user's cards by state (the dashboard's cards per user).
type UserCards struct {
	VirtualID   string
	Unscratched int
	Revealed    int
}

// Total is the user's card count.
func (u UserCards) Total() int { return u.Unscratched + u.Revealed }

// Summary is a read-only overview of one channel's cards.
type Summary struct {
	Users []UserCards // in the store's order, at most the limit asked for
	// MoreUsers is true when users beyond the limit exist.
	MoreUsers bool
	Cards     int
	// Tracks counts tracking GETs by kind (Impression, Click).
	Tracks map[string]int
}

// Summary counts a channel's cards per user (up to maxUsers users) and
// its tracking GETs by kind, in one read transaction.
func (s *Service) Summary(channel string, maxUsers int) (Summary, error) {
	out := Summary{Users: []UserCards{}, Tracks: map[string]int{}}
	err := s.Store.ViewCards(channel, func(tx *state.CardTx) error {
		tx.EachIndexed(func(user []byte, revealed bool) {
			out.Cards++
			last := len(out.Users) - 1
			if last < 0 || out.Users[last].VirtualID != string(user) {
				if len(out.Users) == maxUsers {
					out.MoreUsers = true
					return
				}
				out.Users = append(out.Users, UserCards{VirtualID: string(user)})
				last++
			}
			if revealed {
				out.Users[last].Revealed++
			} else {
				out.Users[last].Unscratched++
			}
		})
		return tx.EachTrack(func(ev model.TrackEvent) error {
			out.Tracks[ev.Kind]++
			return nil
		})
	})
	return out, err
}

// CampaignFunnel counts one campaign's cards through its stages.
type CampaignFunnel struct {
	Campaign                              string
	Issued, Impressions, Clicks, Revealed int
}

// Funnel counts a channel's cards per campaign through issue, tracked
// impressions and clicks (each GET counted) and reveal, by campaign id.
func (s *Service) Funnel(channel string) ([]CampaignFunnel, error) {
	by := map[string]*CampaignFunnel{}
	campaignOf := map[uint64]string{}
	err := s.Store.ViewCards(channel, func(tx *state.CardTx) error {
		err := tx.EachCard(func(c model.Card) error {
			f := by[c.CampaignID]
			if f == nil {
				f = &CampaignFunnel{Campaign: c.CampaignID}
				by[c.CampaignID] = f
			}
			f.Issued++
			if c.Revealed() {
				f.Revealed++
			}
			campaignOf[c.RewardID] = c.CampaignID
			return nil
		})
		if err != nil {
			return err
		}
		return tx.EachTrack(func(ev model.TrackEvent) error {
			f := by[campaignOf[ev.RewardID]]
			switch {
			case f == nil:
			case ev.Kind == Impression:
				f.Impressions++
			case ev.Kind == Click:
				f.Clicks++
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	out := make([]CampaignFunnel, 0, len(by))
	for _, f := range by {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Campaign < out[j].Campaign })
	return out, nil
}
