package control

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/journal"
)

type verifyRequest struct {
	Channel  string                     `json:"channel"`
	Endpoint string                     `json:"endpoint"`
	Where    map[string]json.RawMessage `json:"where"`
	Since    uint64                     `json:"since"`
	Times    *int                       `json:"times"`
	AtLeast  *int                       `json:"atLeast"`
	AtMost   *int                       `json:"atMost"`
}

// Verify is POST /__sim/verify: how many of a channel's exchanges with
// an endpoint have a request passing every predicate, and, when the
// count does not hold, the exchanges that came closest.
func (a *API) Verify(c echo.Context) error {
	var req verifyRequest
	if err := a.bind(c, "control.verify", &req); err != nil {
		return err
	}
	if err := knownEndpoint(req.Endpoint); err != nil {
		return err
	}
	where, err := journal.ParseWhere(req.Where)
	if err != nil {
		return badRequest(c, err.Error())
	}
	v, err := a.journal.Verify(c.Request().Context(), journal.Check{
		Channel: req.Channel, Endpoint: req.Endpoint, Where: where, Since: req.Since,
		Times: req.Times, AtLeast: req.AtLeast, AtMost: req.AtMost,
	})
	if err != nil {
		return internal(err)
	}
	return c.JSON(http.StatusOK, v)
}

// knownEndpoint refuses an endpoint that is neither an operation name
// nor a path: a typo would count nothing and pass every "never".
func knownEndpoint(name string) error {
	if name == "" || strings.HasPrefix(name, "/") {
		return nil
	}
	if _, ok := contract.ByName(name); ok {
		return nil
	}
	names := make([]string, 0, len(contract.Ops))
	for _, op := range contract.Ops {
		names = append(names, op.Name)
	}
	slices.Sort(names)
	return fail(http.StatusBadRequest, "endpoint %q is not an operation name (one of %s) or a path", name, strings.Join(names, ", "))
}
