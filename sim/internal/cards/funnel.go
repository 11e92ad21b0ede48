package cards

import (
	"sort"

	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/state"
)

// CampaignFunnel counts one campaign's cards through its stages.
type CampaignFunnel struct {
	Campaign                              string
	Issued, Impressions, Clicks, Revealed int
}

// Funnel counts a channel's cards per campaign through issue, tracked
// impressions and clicks (each GET counted) and reveal, by campaign id,
// for the control dashboard. It reads every card and tracking event of
// the channel: a dashboard read, not a request path.
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
