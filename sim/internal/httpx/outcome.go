package httpx

import (
	"strings"

	"github.com/labstack/echo/v4"
)

// Outcome is what a handler tells the journal beyond the answer it gives:
// the injected fault that fired (whatever the answer, even none) and
// whether the connection was dropped unanswered.
type Outcome struct {
	Fault   string
	Dropped bool
	// Channel and VirtualID own the bearer token BearerToken admitted:
	// the journal attributes a call without a body (the listing) by them.
	Channel, VirtualID string
}

const outcomeKey = "rewardsim.outcome"

// OutcomeOf returns the request's outcome note, made on first use.
func OutcomeOf(c echo.Context) *Outcome {
	if o, ok := c.Get(outcomeKey).(*Outcome); ok {
		return o
	}
	o := &Outcome{}
	c.Set(outcomeKey, o)
	return o
}

// NoteFault names the injected fault that fired on this request.
func NoteFault(c echo.Context, kind string) { OutcomeOf(c).Fault = kind }

// faultName reads a fault's name from an "injected fault: NAME" reason.
func faultName(reason string) string {
	name, _ := strings.CutPrefix(reason, "injected fault: ")
	return name
}
