// Package rewards serves the rewards host's operations: the two token
// endpoints (rewards.go) and the scratch cards' GetReward,
// FetchRewardInfo and the listing, and the tracking pixel and click
// handlers (Tracking), which sim/routes.go lists beside the contract's
// operations (cards.go).
package rewards

import (
	"fmt"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/frontdoor"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/jsonw"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/signedcall"
	"github.com/rewardsim/rewardsim/sim/internal/token"
)

// Deps is what the rewards host needs.
type Deps struct {
	Door   *frontdoor.Door
	Signed *signedcall.Deps
	Tokens *token.Service
	// Cards, Channels and PublicURL serve the scratch-card endpoints (cards.go).
	Cards     *cards.Service
	Channels  ChannelsByName
	PublicURL string
}

// Handlers are the rewards host's operations. The router routes them by
// the contract table and checks their bearer tokens by its Auth column.
func Handlers(d Deps) httpx.OpHandlers {
	h := &handlers{d}
	return httpx.OpHandlers{
		contract.OpReferenceToken:  frontdoor.Handle(d.Door, frontdoor.Endpoint[tokenRequest]{Serve: h.referenceToken}),
		contract.OpAuthToken:       frontdoor.Handle(d.Door, frontdoor.Endpoint[tokenRequest]{Serve: h.authToken}),
		contract.OpGetReward:       frontdoor.Handle(d.Door, frontdoor.Endpoint[getRewardRequest]{Check: h.checkGetReward, Serve: h.getReward}),
		contract.OpFetchRewardInfo: frontdoor.Handle(d.Door, frontdoor.Endpoint[revealRequest]{Check: h.checkReveal, Serve: h.fetchRewardInfo}),
		contract.OpListCards:       frontdoor.Handle(d.Door, frontdoor.Endpoint[listRequest]{Check: h.checkList, Serve: h.listCards}),
	}
}

// Opener is the bearer schemes' way in (BearerRef, BearerUser): the
// token's channel, then the body by the operation's request schema: none
// (the listing), a signed envelope (FetchRewardInfo), or JSON (GetReward).
func Opener(d Deps) frontdoor.Opener {
	h := &handlers{d}
	return func(c echo.Context, op contract.Op, body []byte, readErr error, req any) (*frontdoor.Call, error) {
		switch {
		case op.Request == "":
			return h.openBearer(c, op)
		case op.RequestBDATA != "":
			return h.openEnvelope(c, op, body, readErr, req)
		}
		return h.openJSON(c, op, body, readErr, req)
	}
}

// Dialect is the rewards host's plain JSON dialect of injected faults.
func Dialect(d Deps) frontdoor.Dialect { return (&handlers{d}).faults }

// Failure is the cards host's answer to a failure of the simulator itself
// (a frontdoor.Failure): the operation's Internal Error body.
func Failure(op contract.Op, _ *frontdoor.Call) *httpx.Error {
	return &httpx.Error{Body: failureBody(op.Name, "Internal Error")}
}

type handlers struct{ Deps }

// tokenRequest is the payload of the token endpoints: getSecuredReferenceToken
// names the channel in bName, GetAuthToken in channelName.
type tokenRequest struct {
	BName       string `json:"bName"`
	VirtualID   string `json:"virtualId"`
	ChannelName string `json:"channelName"`
}

// The token answers' BDATA. Structs, not maps, to skip the map encoder's
// reflection and sorting; the fields are in the sorted order the maps
// were written in, so the bytes are the same.
type (
	referenceTokenAnswer struct {
		ExpireDate   string `json:"expireDate"`
		ReferenceKey string `json:"referenceKey"`
	}
	authTokenAnswer struct {
		ExpireDate string `json:"expireDate"`
		Token      string `json:"token"`
	}
)

// AppendJSON writes the answer as encoding/json does (TestTokenAnswersAppendJSON):
// sealed without reflection (envelope.Appender).
func (a referenceTokenAnswer) AppendJSON(b []byte) []byte {
	return appendTokenAnswer(b, a.ExpireDate, `,"referenceKey":`, a.ReferenceKey)
}

// AppendJSON: as referenceTokenAnswer's.
func (a authTokenAnswer) AppendJSON(b []byte) []byte {
	return appendTokenAnswer(b, a.ExpireDate, `,"token":`, a.Token)
}

// appendTokenAnswer writes {"expireDate":expire<field>value}, field
// being the token's `,"name":`.
func appendTokenAnswer(b []byte, expire, field, value string) []byte {
	b = append(b, `{"expireDate":`...)
	b = jsonw.AppendString(b, expire)
	b = append(b, field...)
	b = jsonw.AppendString(b, value)
	return append(b, '}')
}

// referenceToken is getSecuredReferenceToken (TOK-1).
func (h *handlers) referenceToken(c echo.Context, call *frontdoor.Call, req *tokenRequest) error {
	if req.BName != call.Channel.Name {
		return signedcall.Invalid(call.Scenario, fmt.Sprintf("bName %q is not the name of channel %s (matched case-sensitively)", req.BName, call.Channel.ChannelID))
	}
	t, err := h.Tokens.Issue(model.ReferenceToken, call.Channel.Name, "", call.Scenario.Tokens.ReferenceTTL.D())
	if err != nil {
		return err // the door's platform failure: HTTP 500, logged
	}
	return h.Signed.Reply(c, call, referenceTokenAnswer{ExpireDate: call.Scenario.FormatExpire(t.ExpiresAt), ReferenceKey: t.Value})
}

// authToken is GetAuthToken (TOK-2): it reads channelName, not bName.
func (h *handlers) authToken(c echo.Context, call *frontdoor.Call, req *tokenRequest) error {
	if req.ChannelName != call.Channel.Name {
		return signedcall.Invalid(call.Scenario, fmt.Sprintf("channelName %q is not the name of channel %s (matched case-sensitively)", req.ChannelName, call.Channel.ChannelID))
	}
	t, err := h.Tokens.Issue(model.UserToken, call.Channel.Name, req.VirtualID, call.Scenario.Tokens.UserTTL.D())
	if err != nil {
		return err // the door's platform failure: HTTP 500, logged
	}
	return h.Signed.Reply(c, call, authTokenAnswer{ExpireDate: call.Scenario.FormatExpire(t.ExpiresAt), Token: t.Value})
}
