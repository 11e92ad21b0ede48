package control

import (
	"bytes"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/picture"
)

// Diagram is GET /__sim/diagram.svg: the sequence diagram of the
// exchanges and webhook attempts the journal filter selects (channel,
// virtualId, endpoint, kind, from, to), oldest first, without the
// simulator's own assets unless ?assets=1.
func (a *API) Diagram(c echo.Context) error {
	f, err := filter(c, 0, 0)
	if err != nil {
		return badRequest(c, err.Error())
	}
	es, err := a.journal.Entries(c.Request().Context(), f)
	if err != nil {
		return err
	}
	keep := es[:0]
	for _, e := range es {
		if c.QueryParam("assets") != "" || !picture.IsAsset(e) {
			keep = append(keep, e)
		}
	}
	title := "rewardsim flow"
	for _, k := range []string{"channel", "virtualId", "endpoint"} {
		if v := c.QueryParam(k); v != "" {
			title += " " + k + "=" + v
		}
	}
	var b bytes.Buffer
	if err := picture.Sequence(&b, title, picture.Calls(keep)); err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.Blob(http.StatusOK, "image/svg+xml", b.Bytes())
}
