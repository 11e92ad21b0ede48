// Package rewards serves the rewards host: the two token endpoints now;
// GetReward, FetchRewardInfo, the listing and tracking as they land.
package rewards

import (
	"fmt"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
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

// Handlers are the rewards host's operations. The router routes them by
// the contract table and checks their bearer tokens by its Auth column.
func Handlers(d Deps) httpx.OpHandlers {
	h := &handlers{d}
	return httpx.OpHandlers{
		contract.OpReferenceToken:  h.referenceToken,
		contract.OpAuthToken:       h.authToken,
		contract.OpGetReward:       h.getReward,
		contract.OpFetchRewardInfo: h.fetchRewardInfo,
		contract.OpListCards:       h.listCards,
	}
}

type handlers struct{ Deps }

// referenceToken is getSecuredReferenceToken (TOK-1).
func (h *handlers) referenceToken(c echo.Context, op contract.Op) error {
	var req struct {
		BName string `json:"bName"`
	}
	call, err := h.Signed.Open(c, op, &req)
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
func (h *handlers) authToken(c echo.Context, op contract.Op) error {
	var req struct {
		VirtualID   string `json:"virtualId"`
		ChannelName string `json:"channelName"`
	}
	call, err := h.Signed.Open(c, op, &req)
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
