package dashboard

import (
	"html/template"
	"strings"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/picture"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

// charts draws a channel's pictures: a funnel per campaign (cards issued,
// impressions and clicks tracked, revealed) and the stock of each of its
// offers over time (each claim a step down). Both are SVG drawn by
// picture, which escapes its own text.
func (s Sources) charts(sc *scenario.Scenario, channel string, now time.Time) (funnels, stocks []template.HTML, err error) {
	fs, err := s.Cards.Funnel(channel)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range fs {
		var b strings.Builder
		err := picture.Funnel(&b, "campaign "+f.Campaign, []picture.Stage{
			{Name: "cards issued", Count: f.Issued}, {Name: "impressions", Count: f.Impressions},
			{Name: "clicks", Count: f.Clicks}, {Name: "revealed", Count: f.Revealed},
		})
		if err != nil {
			return nil, nil, err
		}
		funnels = append(funnels, template.HTML(b.String()))
	}
	if s.Coupons == nil {
		return funnels, nil, nil
	}
	for _, o := range sc.OfferList(channel) {
		got, err := s.Coupons.Delivered(channel, o.ID)
		if err != nil {
			return nil, nil, err
		}
		claims := make([]time.Time, 0, len(got))
		for _, c := range got {
			claims = append(claims, c.PurchasedAt)
		}
		var b strings.Builder
		if err := picture.Stock(&b, "offer "+o.ID, o.StockN, claims, now); err != nil {
			return nil, nil, err
		}
		stocks = append(stocks, template.HTML(b.String()))
	}
	return funnels, stocks, nil
}
