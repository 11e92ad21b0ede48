// Package rewards serves the rewards host: the two token endpoints now;
// GetReward, FetchRewardInfo, the listing and tracking as they land.
package rewards

import (
	"fmt"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/signedcall"
	"github.com/rewardsim/rewardsim/sim/internal/token"
)

// Deps is what the rewards host needs.
type Deps struct {
	Signed *signedcall.Deps
	Tokens *token.Service
	// Cards, Channels and PublicURL serve the scratch-card endpoints (cards.go).
	Cards     *cards.Service
	Channels  ChannelsByName
	PublicURL string
}

// Register adds the rewards host's routes to e.
func Register(e *echo.Echo, d Deps) {
	h := &handlers{d}
	op := mustOp(contract.OpReferenceToken)
	e.POST(op.Path, h.referenceToken)
	op = mustOp(contract.OpAuthToken)
	e.POST(op.Path, h.authToken)
	if d.Cards != nil {
		registerCards(e, h)
	}
}

func mustOp(name string) contract.Op {
	op, ok := contract.ByName(name)
	if !ok {
		panic("contract has no operation " + name)
	}
	return op
}

type handlers struct{ Deps }

// referenceToken is getSecuredReferenceToken (TOK-1).
func (h *handlers) referenceToken(c echo.Context) error {
	var req struct {
		BName string `json:"bName"`
	}
	call, err := h.Signed.Open(c, mustOp(contract.OpReferenceToken), &req)
	if err != nil {
		return err
	}
	if req.BName != call.Channel.Name {
		return signedcall.Invalid(call.Scenario, fmt.Sprintf("bName %q is not the name of channel %s (matched case-sensitively)", req.BName, call.Channel.ChannelID))
	}
	t, err := h.Tokens.Issue(model.ReferenceToken, call.Channel.Name, "", call.Scenario.Tokens.ReferenceTTL.D())
	if err != nil {
		return signedcall.Failure(call.Scenario, 0, signedcall.InternalError, err.Error())
	}
	return h.Signed.Reply(c, call, map[string]string{
		"referenceKey": t.Value,
		"expireDate":   call.Scenario.FormatExpire(t.ExpiresAt),
	})
}

// authToken is GetAuthToken (TOK-2): it reads channelName, not bName.
func (h *handlers) authToken(c echo.Context) error {
	var req struct {
		VirtualID   string `json:"virtualId"`
		ChannelName string `json:"channelName"`
	}
	call, err := h.Signed.Open(c, mustOp(contract.OpAuthToken), &req)
	if err != nil {
		return err
	}
	if req.ChannelName != call.Channel.Name {
		return signedcall.Invalid(call.Scenario, fmt.Sprintf("channelName %q is not the name of channel %s (matched case-sensitively)", req.ChannelName, call.Channel.ChannelID))
	}
	t, err := h.Tokens.Issue(model.UserToken, call.Channel.Name, req.VirtualID, call.Scenario.Tokens.UserTTL.D())
	if err != nil {
		return signedcall.Failure(call.Scenario, 0, signedcall.InternalError, err.Error())
	}
	return h.Signed.Reply(c, call, map[string]string{
		"token":      t.Value,
		"expireDate": call.Scenario.FormatExpire(t.ExpiresAt),
	})
}
