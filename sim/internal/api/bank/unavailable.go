package bank

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/frontdoor"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
)

// NotAvailableReason starts the X-Rewardsim-Reason header of every call
// to an endpoint that does not exist in the real service (NA-1), so the
// journal and the conformance report can classify the call as a finding.
const NotAvailableReason = "not-available"

// unavailable are the endpoints of section 4.11, with what to do instead.
var unavailable = map[string]string{
	contract.OpRegisterEvent: "Referral is run by the publisher: when a referral converts, fire a scratch-card trigger " +
		"(GetReward or GetScratchCardForBank) with a dedicated trigger code. Registration needs no call.",
	contract.OpExitEvent: "No logout call is needed: stop using the sessionId and user token; they lapse on their own.",
}

// notAvailable answers RegisterEvent or ExitEvent with HTTP 404 and a
// body saying it does not exist and what to do instead (NA-1).
// door reads its body and notes whom the call was for (no way in
// admits it).
func notAvailable(door *frontdoor.Door, name, instead string) httpx.OpHandler {
	body := struct {
		Status    int    `json:"status"`
		ErrorCode string `json:"errorCode"`
		Message   string `json:"message"`
		Instead   string `json:"instead"`
	}{
		http.StatusNotFound, "NOT_AVAILABLE",
		name + " does not exist in the real service: it has no server implementation " +
			"(interface section 4.11). Do not build against it.",
		instead,
	}
	reason := NotAvailableReason + ": " + name + " has no implementation in the real service (NA-1)"
	return func(c echo.Context, _ contract.Op) error {
		door.NoteUnread(c)
		return &httpx.Error{Status: http.StatusNotFound, Body: body, Reason: reason}
	}
}
