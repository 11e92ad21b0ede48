package rewards

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

// appendListAnswer writes the bytes c.JSON wrote for a successful
// listing (the simulator's serializer, newline included) for pages of
// none to many cards, unscratched and revealed, in listing order. The cards'
// own encoding is compared on generated cards in package cards.
func TestAppendListAnswer(t *testing.T) {
	e := echo.New()
	e.JSONSerializer = httpx.JSONSerializer{}
	sc := &scenario.Scenario{Location: time.FixedZone("IST", 5*3600+1800)}
	const base = "http://127.0.0.1:8080"
	var all []model.Card
	for i := range 12 {
		c := model.Card{RewardID: uint64(100 - 7*i), Channel: "DEMOBANK", CreatedAt: time.Date(2026, 1, 15, 10, 0, i, i*1e6, time.UTC)}
		if i%3 == 0 {
			c.Reward = &model.Reward{Offer: model.Offer{OfferTitle: fmt.Sprintf("Offer <%d> & more", i), CouponImage: "/assets/img/c.svg", PromoLink: "https://x.invalid/?a=1&b=2"}}
		}
		all = append(all, c)
	}
	for _, p := range []struct{ page, limit, total, n int }{{1, 10, 0, 0}, {1, 10, 1, 1}, {1, 10, 12, 10}, {2, 10, 12, 2}, {1_000_000, 1, 12, 0}, {3, 5, 12, 12}} {
		list := slices.SortedStableFunc(slices.Values(all[:p.n]), cards.ListingCmp) // as the store gives them
		wire, _ := cards.Wire(base, sc, list)
		rec := httptest.NewRecorder()
		c := e.NewContext(httptest.NewRequest(http.MethodGet, "/", nil), rec)
		if err := c.JSON(http.StatusOK, listAnswer{Status: true, Message: "success", Page: p.page, Limit: p.limit, Total: p.total, Rewards: wire}); err != nil {
			t.Fatal(err)
		}
		if got := appendListAnswer(nil, p.page, p.limit, p.total, base, sc.Location, viewsOf(list)); string(got) != rec.Body.String() {
			t.Errorf("%+v:\n got %s\nwant %s", p, got, rec.Body)
		}
	}
}

// viewsOf is cards as the store shows them to the listing.
func viewsOf(list []model.Card) []model.CardView[[]byte] {
	out := make([]model.CardView[[]byte], len(list))
	for i := range list {
		out[i] = model.BytesView(model.ViewOf(&list[i]))
	}
	return out
}

// appendGetRewardAnswer writes the bytes c.JSON wrote for GetReward's
// success: one new card, several, none, revealed ones (a duplicate
// after a reveal) in any order, on channels that need escaping.
func TestAppendGetRewardAnswer(t *testing.T) {
	e := echo.New()
	e.JSONSerializer = httpx.JSONSerializer{}
	sc := &scenario.Scenario{Location: time.FixedZone("IST", 5*3600+1800)}
	var all []model.Card
	for i := range 9 {
		c := model.Card{RewardID: uint64(1 + 37*i%11), Channel: []string{"DEMOBANK", "A B&C/é"}[i%2], CreatedAt: time.Date(2026, 1, 15, 10, 0, i, i*1e6, time.UTC)}
		if i%4 == 1 {
			c.Reward = &model.Reward{Offer: model.Offer{OfferTitle: fmt.Sprintf("Offer <%d> & \"more\"", i), CouponImage: "/assets/img/c.svg", PromoLink: "https://x.invalid/?a=1&b=2"}}
		}
		all = append(all, c)
	}
	for _, base := range []string{"http://127.0.0.1:8080", "https://rewards.example/p"} {
		for n := range len(all) + 1 {
			list := all[:n]
			wire, clicks := cards.Wire(base, sc, list)
			rec := httptest.NewRecorder()
			c := e.NewContext(httptest.NewRequest(http.MethodPost, "/", nil), rec)
			if err := c.JSON(http.StatusOK, getRewardAnswer{Status: true, Message: "success", Rewards: wire, Clicktrack: clicks}); err != nil {
				t.Fatal(err)
			}
			if got := appendGetRewardAnswer(nil, base, sc.Location, list); string(got) != rec.Body.String() {
				t.Errorf("%s, %d cards:\n got %s\nwant %s", base, n, got, rec.Body)
			}
		}
	}
}
