// Package bank serves the bank host: GenerateSessionInfoV2 now;
// GetScratchCardForBank, the microsite and the SDK emulation as they land.
package bank

import (
	"fmt"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/frontdoor"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/jsonw"
	"github.com/rewardsim/rewardsim/sim/internal/signedcall"
	"github.com/rewardsim/rewardsim/sim/internal/token"
)

// Deps is what the bank host needs.
type Deps struct {
	Door   *frontdoor.Door
	Signed *signedcall.Deps
	// Sessions issues GenerateSessionInfoV2's sessions.
	Sessions *token.Service
	// Cards serves GetScratchCardForBank (cards.go).
	Cards *cards.Service
	// PublicURL is the base of absolute URLs handed out (banners).
	PublicURL string
}

// Handlers are the bank host's signed operations and the unavailable
// ones (the microsite package serves the SDK's).
func Handlers(d Deps) httpx.OpHandlers {
	h := &handlers{d}
	out := httpx.OpHandlers{
		contract.OpSession:  frontdoor.Handle(d.Door, frontdoor.Endpoint[sessionRequest]{Serve: h.session}),
		contract.OpBankCard: frontdoor.Handle(d.Door, frontdoor.Endpoint[bankCardRequest]{Serve: h.bankCard}),
	}
	for name, instead := range unavailable {
		out[name] = notAvailable(d.Door, name, instead)
	}
	return out
}

type handlers struct{ Deps }

// session is GenerateSessionInfoV2 (SESS-1, ENV-4, ENV-5).
type sessionRequest struct {
	BName     string `json:"bName"`
	VirtualID string `json:"virtualId"`
}

// sessionAnswer is the session's BDATA (a struct: no map encoder).
type sessionAnswer struct {
	SessionID string `json:"sessionId"`
}

// AppendJSON writes the answer as encoding/json does (TestSessionAnswerAppendJSON):
// sealed without reflection (envelope.Appender).
func (a sessionAnswer) AppendJSON(b []byte) []byte {
	b = append(b, `{"sessionId":`...)
	b = jsonw.AppendString(b, a.SessionID)
	return append(b, '}')
}

func (h *handlers) session(c echo.Context, call *frontdoor.Call, req *sessionRequest) error {
	if req.BName != call.Channel.Name {
		return signedcall.Invalid(call.Scenario, fmt.Sprintf("bName %q is not the name of channel %s (matched case-sensitively)", req.BName, call.Channel.ChannelID))
	}
	sess, err := h.Sessions.IssueSession(call.Channel.Name, req.VirtualID, call.Scenario.Sessions.TTL.D())
	if err != nil {
		return err // the door's platform failure: HTTP 500, logged
	}
	return h.Signed.Reply(c, call, sessionAnswer{SessionID: sess.ID})
}
