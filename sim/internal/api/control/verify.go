package control

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/match"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
	"github.com/rewardsim/rewardsim/sim/internal/verify"
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
	if err := a.knownChannel(req.Channel); err != nil {
		return err
	}
	if err := a.reachable(req.Endpoint, req.Where); err != nil {
		return err
	}
	where, err := match.Parse(req.Where)
	if err != nil {
		return badRequest(c, err.Error())
	}
	v, err := verify.Verify(c.Request().Context(), a.o.Journal, verify.Check{
		Channel: req.Channel, Endpoint: req.Endpoint, Where: where, Since: req.Since,
		Times: req.Times, AtLeast: req.AtLeast, AtMost: req.AtMost,
	})
	if err != nil {
		return internal(err)
	}
	return c.JSON(http.StatusOK, v)
}

// knownChannel refuses a channel that is neither a name nor a CHANNELID
// in force: a typo or a deleted channel counts nothing and would pass
// every "never" (404).
func (a *API) knownChannel(name string) error {
	if _, _, ok := a.scenarios.ByChannelName(name); ok {
		return nil
	}
	if _, _, ok := a.scenarios.ByChannelID(name); ok {
		return nil
	}
	return fail(http.StatusNotFound, "channel %q is not registered (neither a channel name nor a CHANNELID in force): nothing of it can be counted", name)
}

// reachable refuses a where pointer that names no field of the
// endpoint's request as its JSON Schema has it (a signed call's BDATA
// decoded): "never" would pass on a misspelt field. Objects the schema
// leaves free-form, like additionalParams, stay open below; an endpoint
// with no request schema (the listing's query, a path) is not checked.
func (a *API) reachable(endpoint string, where map[string]json.RawMessage) error {
	op, ok := contract.ByName(endpoint)
	name := cmp.Or(op.RequestBDATA, op.Request)
	if !ok || name == "" || name == "envelope.request" {
		return nil
	}
	for _, ptr := range slices.Sorted(maps.Keys(where)) {
		ok, at, fields, err := a.o.Schemas.Reach(name, ptr)
		if err != nil || ok {
			continue
		}
		missing := ptr[len(strings.TrimSuffix(at, "/")):]
		missing = "/" + strings.SplitN(strings.TrimPrefix(missing, "/"), "/", 2)[0]
		msg := fmt.Sprintf("where %s: the %s request has no field %s", ptr, endpoint, strings.TrimSuffix(at, "/")+missing)
		if near, ok := schema.Nearest(strings.TrimPrefix(missing, "/"), fields); ok {
			msg += fmt.Sprintf(" (did you mean %s/%s?)", strings.TrimSuffix(at, "/"), near)
		}
		if len(fields) > 0 {
			msg += "; its fields there: " + strings.Join(fields, ", ")
		} else {
			msg += "; nothing lies below " + at
		}
		return fail(http.StatusBadRequest, "%s", msg)
	}
	return nil
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
	return fail(http.StatusBadRequest, "%s", fault.NotAnOperation(name, "or a path"))
}
