package httpx

import (
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// LimitHeader says, on an answer, that its channel's capacity limit held
// the call: "waited REASON DURATION" (admitted after a wait) or "refused
// REASON DURATION" (turned away after that wait). The journal reads it
// back (it reads no request), so what the answer said and what the
// journal keeps agree.
const LimitHeader = "X-Rewardsim-Limit"

// LimitNote is what a capacity limit did to a call.
type LimitNote struct {
	Refused bool
	// Reason is what held it: in-flight, rate or queue (package limit).
	Reason string
	Waited time.Duration
}

// String is the note as LimitHeader writes it.
func (n LimitNote) String() string {
	verb := "waited"
	if n.Refused {
		verb = "refused"
	}
	return verb + " " + n.Reason + " " + n.Waited.Round(time.Microsecond).String()
}

// ParseLimitNote reads a LimitHeader value; ok false when it is not one.
func ParseLimitNote(v string) (n LimitNote, ok bool) {
	f := strings.Fields(v)
	if len(f) != 3 || f[0] != "waited" && f[0] != "refused" {
		return n, false
	}
	d, err := time.ParseDuration(f[2])
	if err != nil {
		return n, false
	}
	return LimitNote{Refused: f[0] == "refused", Reason: f[1], Waited: d}, true
}

// NoteLimit says on the answer what the channel's limit did to the call.
func NoteLimit(c echo.Context, n LimitNote) {
	c.Response().Header().Set(LimitHeader, n.String())
}
