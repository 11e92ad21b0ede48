package state

import (
	"encoding/binary"
	"encoding/json"
	"sort"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// CampaignFunnel counts one campaign's cards through its stages.
type CampaignFunnel struct {
	Campaign                              string
	Issued, Impressions, Clicks, Revealed int
}

// Funnel counts the channel's cards per campaign: issued, tracked
// impressions and clicks (each GET counted), revealed; by campaign id. It
// reads every card and tracking event of the channel: a dashboard read,
// not a request path.
func (t *CardTx) Funnel() ([]CampaignFunnel, error) {
	by := map[string]*CampaignFunnel{}
	campaignOf := map[uint64]string{}
	if b := t.sub(subCard); b != nil {
		err := b.ForEach(func(k, v []byte) error {
			var c model.Card
			if err := decodeCard(v, &c); err != nil {
				return err
			}
			f := by[c.CampaignID]
			if f == nil {
				f = &CampaignFunnel{Campaign: c.CampaignID}
				by[c.CampaignID] = f
			}
			f.Issued++
			if c.Revealed() {
				f.Revealed++
			}
			if len(k) == 8 {
				campaignOf[binary.BigEndian.Uint64(k)] = c.CampaignID
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if b := t.sub(subTrack); b != nil {
		err := b.ForEach(func(k, v []byte) error {
			var ev model.TrackEvent
			if len(k) < 8 || json.Unmarshal(v, &ev) != nil {
				return nil
			}
			f := by[campaignOf[binary.BigEndian.Uint64(k[:8])]]
			switch {
			case f == nil:
			case ev.Kind == "impression":
				f.Impressions++
			case ev.Kind == "click":
				f.Clicks++
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	out := make([]CampaignFunnel, 0, len(by))
	for _, f := range by {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Campaign < out[j].Campaign })
	return out, nil
}

// OfferCoupons lists every coupon delivered of one offer, every user.
func (s *Store) OfferCoupons(channel, offerID string) ([]model.Coupon, error) {
	// Coupons sit under channel,offer,virtualId + seq: every user's are under channel,offer.
	return scanWhere(s, bucketCoupons, key(channel, offerID), nil, decodeCoupon)
}
