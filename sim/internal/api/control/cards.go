package control

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// The scratch-card control calls take ?channel=NAME, which defaults to
// the first channel of the active scenario.
func (a *API) cardChannel(c echo.Context) string {
	if ch := c.QueryParam("channel"); ch != "" {
		return ch
	}
	if sc := a.scenarios.Active(); len(sc.Channels) > 0 {
		return sc.Channels[0].Name
	}
	return ""
}

func (a *API) card(c echo.Context, raw string) (model.Card, error) {
	id, err := strconv.ParseUint(raw, 10, 64)
	if err != nil {
		return model.Card{}, fail(http.StatusBadRequest, "rewardId must be a card number")
	}
	cd, ok, err := a.o.Cards.Card(a.cardChannel(c), id)
	if err != nil {
		return cd, err
	}
	if !ok {
		return cd, fail(http.StatusNotFound, "no card %s in channel %s", raw, a.cardChannel(c))
	}
	return cd, nil
}

// Tracking is impressions and clicks of one card (TRK-1):
// ?rewardId=N[&channel=NAME].
func (a *API) Tracking(c echo.Context) error {
	cd, err := a.card(c, c.QueryParam("rewardId"))
	if err != nil {
		return err
	}
	ev, err := a.o.Cards.Tracks(cd.Channel, cd.RewardID)
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
}

// Notifications are the recorded deviceToken pushes (BANK-1):
// [?channel=NAME][&deviceToken=T].
func (a *API) Notifications(c echo.Context) error {
	out, err := a.o.Cards.Notifications(a.cardChannel(c), c.QueryParam("deviceToken"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"channel": a.cardChannel(c), "notifications": out})
}

// Card is one card as stored, reward included: /cards/:rewardId[?channel=NAME].
func (a *API) Card(c echo.Context) error {
	cd, err := a.card(c, c.Param("rewardId"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, cd)
}
