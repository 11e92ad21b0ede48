package httpx

import (
	"strings"

	"github.com/labstack/echo/v4"
)

// Outcome is the exchange's facts beyond the bytes, as the way in and the
// handler found them, for the journal (which does not read requests):
// whom the call was for, the injected fault that fired (whatever the
// answer, even none) and whether the connection was dropped unanswered.
type Outcome struct {
	// Channel (its name), ChannelID and VirtualID are whom the call was
	// for: what admitted it (the envelope's channel, the bearer token's
	// owner, the appKey's channel) or, for a call nothing admitted, what
	// it said (NoteCaller).
	Channel, ChannelID, VirtualID string
	Fault                         string
	Dropped                       bool
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

// NoteCaller says whom the call is for; an empty value leaves what was
// noted.
func NoteCaller(c echo.Context, channel, channelID, virtualID string) {
	o := OutcomeOf(c)
	if channel != "" {
		o.Channel = channel
	}
	if channelID != "" {
		o.ChannelID = channelID
	}
	if virtualID != "" {
		o.VirtualID = virtualID
	}
}

// NoteFault names the injected fault that fired on this request.
func NoteFault(c echo.Context, kind string) { OutcomeOf(c).Fault = kind }

// faultName reads a fault's name from an "injected fault: NAME" reason.
func faultName(reason string) string {
	name, _ := strings.CutPrefix(reason, "injected fault: ")
	return name
}
