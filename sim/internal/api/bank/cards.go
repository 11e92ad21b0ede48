package bank

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/frontdoor"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/signedcall"
)

// bankCard is the answer BDATA of GetScratchCardForBank (2.6).
type bankCard struct {
	Status   bool   `json:"status"`
	Message  string `json:"message"`
	DeepLink string `json:"deepLink"`
	Banner   string `json:"banner"`
}

// DeepLink opens a card inside the SDK. The contract does not show its
// form: the simulator's reading is a rewardsim: URL naming channel and card.
func DeepLink(c model.Card) string {
	q := url.Values{"channel": {c.Channel}, "rewardId": {strconv.FormatUint(c.RewardID, 10)}}
	return "rewardsim://scratchcard?" + q.Encode()
}

// bankCard is GetScratchCardForBank (BANK-1 to BANK-4): signed envelope,
// channel from CHANNELID, a signed {status, message, deepLink, banner}.
// notEligible is GetScratchCardForBank's normal not-eligible answer,
// signed or bare by switches.cards.bankNotEligible (BANK-4).
func (h *handlers) notEligible(c echo.Context, call *frontdoor.Call, reason string) error {
	httpx.SetReason(c, reason)
	ans := bankCard{Message: "failure"}
	if call.Scenario.Switches.Cards.BankNotEligible == scenario.NotEligibleBare {
		return c.JSON(http.StatusOK, ans)
	}
	return h.Signed.Reply(c, call, ans)
}

type bankCardRequest struct {
	VirtualID        string `json:"virtualId"`
	TransDateAndTime string `json:"transDateAndTime"`
	Amount           string `json:"amount"`
	MCC              string `json:"mcc"`
	ExtTransactionID string `json:"extTransactionId"`
	CampaignID       string `json:"campaignId"`
	DeviceToken      string `json:"deviceToken"`
}

func (h *handlers) bankCard(c echo.Context, call *frontdoor.Call, req *bankCardRequest) error {
	sc := call.Scenario
	sw := sc.Switches.Cards
	if call.Shows(fault.NotEligible) {
		return h.notEligible(c, call, "injected fault: not-eligible")
	}
	if _, err := time.ParseInLocation("2006-01-02 15:04:05", req.TransDateAndTime, sc.Location); err != nil {
		return signedcall.Invalid(sc, fmt.Sprintf("transDateAndTime %q is not a valid YYYY-MM-DD HH:mm:ss", req.TransDateAndTime))
	}
	amount, err := strconv.ParseFloat(req.Amount, 64)
	if err != nil {
		return signedcall.Invalid(sc, fmt.Sprintf("amount %q is not a number", req.Amount))
	}
	if sw.BankAmountUnit == scenario.Paisa {
		amount /= 100
	}
	res, err := h.Cards.Issue(cards.IssueRequest{
		Scenario: sc, Channel: call.Channel.Name, VirtualID: req.VirtualID, Source: cards.SourceBank,
		ExtTransactionID: req.ExtTransactionID, NotIdempotent: sw.BankResend == scenario.ResendNew,
		CampaignID: req.CampaignID, MCC: req.MCC, Amount: &amount, DateAndTime: req.TransDateAndTime,
		DeviceToken: req.DeviceToken, DeepLink: DeepLink,
	})
	if refusal.Is(err, refusal.Conflict) {
		return signedcall.Invalid(sc, err.Error())
	}
	if err != nil {
		return err // the door's platform failure: HTTP 500, logged
	}
	if len(res.Cards) == 0 {
		return h.notEligible(c, call, "not eligible: "+res.Reason)
	}
	if res.Duplicate {
		httpx.SetReason(c, "resent extTransactionId "+req.ExtTransactionID+": the original card")
	}
	card := res.Cards[0]
	banner := cards.Absolute(httpx.BaseURL(c, h.PublicURL), cards.Banner(sc, card))
	return h.Signed.Reply(c, call, bankCard{Status: true, Message: "success", DeepLink: DeepLink(card), Banner: banner})
}
