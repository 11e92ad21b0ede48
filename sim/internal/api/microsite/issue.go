package microsite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/inject"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

// issueAnswer is the SDK client issuance result (2.7).
type issueAnswer struct {
	Status        bool   `json:"status"`
	Message       string `json:"message"`
	Banner        string `json:"banner"`
	DeepLink      string `json:"deepLink"`
	IsPopup       bool   `json:"isPopup"`
	PopupBanner   string `json:"popupBanner"`
	PopupDeepLink string `json:"popupDeepLink"`
}

// AdditionalParamKeys are the inner keys of additionalParams (4.12).
var AdditionalParamKeys = []string{"country", "state", "district", "city", "pincode", "storeId", "ipaddress", "lat", "long", "gender", "age", "modeType", "isNewUser"}

// issue is client issuance (SDK-1): the parameter rules of
// getScratchCardDetails / sendRewardCardRequest, then cards.Service.Issue,
// GetReward's issuing code, idempotent on extTransactionId.
func (h *handlers) issue(c echo.Context, op contract.Op) error {
	refuse := func(err error) error {
		return &httpx.Error{Status: httpx.InvalidStatus(err, http.StatusBadRequest), Reason: err.Error(), Body: issueAnswer{Message: err.Error()}}
	}
	bad := func(msg string) error { return refuse(refusal.New(refusal.Invalid, "%s", msg)) }
	body, refused := httpx.ReadValidJSON(c, h.Schemas, op.Request)
	if refused != nil {
		return refuse(refused)
	}
	var req struct {
		ChannelName      string      `json:"channelName"`
		Trigger          string      `json:"triggerEventType"`
		SubTrigger       string      `json:"subTriggerEventType"`
		Amount           json.Number `json:"amount"`
		ExtTransactionID string      `json:"extTransactionId"`
		DateAndTime      string      `json:"dateandtime"`
		VirtualID        string      `json:"virtualId"`
		SessionID        string      `json:"sessionId"`
		MerchantVPA      string      `json:"merchantVPA"`
		AdditionalParams string      `json:"additionalParams"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		return bad("body: " + err.Error())
	}
	ch, sc, ok := h.Channels.ByChannelName(req.ChannelName)
	if !ok {
		return bad(fmt.Sprintf("channelName %q is not a channel of the active scenario", req.ChannelName))
	}
	amount, err := cards.ParseAmount(string(req.Amount))
	if err != nil {
		return bad("amount: " + err.Error())
	}
	if _, err := time.ParseInLocation("02012006150405", req.DateAndTime, sc.Location); err != nil {
		return bad(fmt.Sprintf("dateandtime: %q is not a valid DDMMYYYYHHMMSS", req.DateAndTime))
	}
	switch {
	case req.SessionID == " ":
	case req.SessionID == "" && sc.Switches.SDK.EmptySessionID == scenario.EmptySessionAccept:
	case req.SessionID == "":
		return bad("sessionId: must be the literal single space; an empty string is refused (switches.sdk.emptySessionId)")
	default:
		return bad("sessionId: must be the literal single space")
	}
	if req.Trigger == "UPI" && strings.TrimSpace(req.MerchantVPA) == "" {
		return bad("merchantVPA: is required when triggerEventType is UPI")
	}
	params, err := sdkParams(req.AdditionalParams)
	if err != nil {
		return bad("additionalParams: " + err.Error())
	}
	notEligible := func(reason string) error {
		httpx.SetReason(c, reason)
		return c.JSON(http.StatusOK, issueAnswer{Message: "failure"})
	}
	if act, fired := fault.First(h.Faults, sc.Faults, fault.Call{Endpoint: op.Name, Channel: ch.Name, VirtualID: req.VirtualID}); fired {
		if stop, err := inject.Plain(c, act, inject.Shapes{
			Internal:    issueAnswer{Message: "Internal Error"},
			NotEligible: func() error { return notEligible("injected fault: not-eligible") },
			SignatureMismatch: func() error { // the SDK's error shape: HTTP 400, status false
				return &httpx.Error{Status: http.StatusBadRequest, Reason: "injected fault: signature-mismatch",
					Body: issueAnswer{Message: "Signature Mismatch!"}}
			},
		}); stop {
			return err
		}
	}
	res, err := h.Cards.Issue(cards.IssueRequest{
		Scenario: sc, Channel: ch.Name, VirtualID: req.VirtualID, Source: cards.SourceSDK,
		ExtTransactionID: req.ExtTransactionID, Trigger: req.Trigger, SubTrigger: req.SubTrigger,
		Amount: &amount, DateAndTime: req.DateAndTime, Params: params,
	})
	if refusal.Is(err, refusal.Conflict) {
		return refuse(err)
	}
	if err != nil {
		return err
	}
	if len(res.Cards) == 0 {
		return notEligible("not eligible: " + res.Reason)
	}
	if res.Duplicate {
		httpx.SetReason(c, "duplicate extTransactionId "+req.ExtTransactionID+": the cards it created, none new")
	}
	first, last := res.Cards[0], res.Cards[len(res.Cards)-1]
	base := httpx.BaseURL(c, h.PublicURL)
	ans := issueAnswer{Status: true, Message: "success", Banner: cards.Absolute(base, cards.Banner(sc, first)), DeepLink: h.DeepLink(first)}
	if p, ok := sc.PopupFor(ch.Name, first.CampaignID, amount); ok {
		ans.IsPopup, ans.PopupBanner, ans.PopupDeepLink = true, cards.Absolute(base, p.Banner), h.DeepLink(last)
		if ans.PopupBanner == "" {
			ans.PopupBanner = ans.Banner
		}
	}
	return c.JSON(http.StatusOK, ans)
}

// sdkParams decodes additionalParams, a JSON-encoded object whose keys
// are the documented ones; values become strings for targeting.
func sdkParams(raw string) (map[string]string, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, nil
	}
	return cards.DecodeParams([]byte(raw), AdditionalParamKeys)
}
