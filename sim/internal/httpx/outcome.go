package httpx

import (
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/park"
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
	// Admitted: the channel's credentials admitted the call (NoteAdmitted),
	// though a later check of its way in may still refuse it.
	Admitted bool
	// Unadmitted: the call was refused before any credentials admitted
	// it, so Channel is only what it said: on a shared box, another job
	// naming the channel with its own credentials. Verify does not count
	// it as the channel's call; the journal keeps it (issue 50).
	Unadmitted bool
	Fault      string
	Dropped    bool
	// Arrival is what the journal gave the call as it came in, for a
	// parked call to keep (park.Call).
	Arrival park.Arrival
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

// NoteAdmitted says the channel's credentials admitted the call (a
// signature, an appKey/secKey, a bearer token of the channel checked):
// whatever its way in refuses later, the call is the channel's.
func NoteAdmitted(c echo.Context, channel, channelID string) {
	NoteCaller(c, channel, channelID, "")
	OutcomeOf(c).Admitted = true
}

// NoteFault names the injected fault that fired on this request.
func NoteFault(c echo.Context, kind string) { OutcomeOf(c).Fault = kind }

// faultName reads a fault's name from an "injected fault: NAME" reason.
func faultName(reason string) string {
	name, _ := strings.CutPrefix(reason, "injected fault: ")
	return name
}
