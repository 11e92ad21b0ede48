package httpx

import (
	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
)

// OpHandler serves one operation of the contract table; the router hands
// it the operation it is routed for, so it never looks its own up.
type OpHandler func(c echo.Context, op contract.Op) error

// OpHandlers is what a host hands the router: a handler per operation name.
type OpHandlers map[string]OpHandler
