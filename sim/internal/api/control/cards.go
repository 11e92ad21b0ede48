package control

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

// CardDeps is what the scratch-card control calls need.
type CardDeps struct {
	Cards  *cards.Service
	Active func() *scenario.Scenario
}

// RegisterCards adds the scratch-card control calls:
//
//	GET /__sim/tracking?rewardId=N[&channel=NAME]       impressions and clicks of one card (TRK-1)
//	GET /__sim/notifications[?channel=NAME][&deviceToken=T]  recorded deviceToken pushes (BANK-1)
//	GET /__sim/cards/:rewardId[?channel=NAME]           one card as stored, reward included
//
// channel defaults to the first channel of the active scenario.
func registerCards(g *echo.Group, d CardDeps) {
	channel := func(c echo.Context) string {
		if ch := c.QueryParam("channel"); ch != "" {
			return ch
		}
		if sc := d.Active(); len(sc.Channels) > 0 {
			return sc.Channels[0].Name
		}
		return ""
	}
	card := func(c echo.Context, raw string) (model.Card, error) {
		id, err := strconv.ParseUint(raw, 10, 64)
		if err != nil {
			return model.Card{}, fail(http.StatusBadRequest, "rewardId must be a card number")
		}
		cd, ok, err := d.Cards.Card(channel(c), id)
		if err != nil {
			return cd, err
		}
		if !ok {
			return cd, fail(http.StatusNotFound, "no card %s in channel %s", raw, channel(c))
		}
		return cd, nil
	}
	g.GET("/tracking", func(c echo.Context) error {
		cd, err := card(c, c.QueryParam("rewardId"))
		if err != nil {
			return err
		}
		ev, err := d.Cards.Tracks(cd.Channel, cd.RewardID)
		if err != nil {
			return err
		}
		n := map[string]int{}
		for _, e := range ev {
			n[e.Kind]++
		}
		return c.JSON(http.StatusOK, map[string]any{
			"channel": cd.Channel, "rewardId": cd.RewardID, "virtualId": cd.VirtualID,
			"impressions": n[cards.Impression], "clicks": n[cards.Click], "events": ev,
		})
	})
	g.GET("/notifications", func(c echo.Context) error {
		out, err := d.Cards.Notifications(channel(c), c.QueryParam("deviceToken"))
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"channel": channel(c), "notifications": out})
	})
	g.GET("/cards/:rewardId", func(c echo.Context) error {
		cd, err := card(c, c.Param("rewardId"))
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, cd)
	})
}
