package microsite

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/frontdoor"
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

type issueRequest struct {
	ChannelName      string            `json:"channelName"`
	Trigger          string            `json:"triggerEventType"`
	SubTrigger       string            `json:"subTriggerEventType"`
	Amount           json.Number       `json:"amount"`
	ExtTransactionID string            `json:"extTransactionId"`
	DateAndTime      string            `json:"dateandtime"`
	VirtualID        string            `json:"virtualId"`
	SessionID        string            `json:"sessionId"`
	MerchantVPA      string            `json:"merchantVPA"`
	AdditionalParams string            `json:"additionalParams"`
	amount           float64           // Amount, checked
	params           map[string]string // AdditionalParams, checked
}

// refuseIssue answers a refused issuance in the SDK's shape: HTTP 400
// (413 for a body over the limit), status false.
func refuseIssue(err error) error {
	return &httpx.Error{Status: httpx.InvalidStatus(err, http.StatusBadRequest), Reason: err.Error(), Body: issueAnswer{Message: err.Error()}}
}

func bad(format string, a ...any) error {
	return refuseIssue(refusal.New(refusal.Invalid, format, a...))
}

// openSDK is the SDK client's way in (a frontdoor.Opener): no credentials
// of its own; the channel is the one the SDK was initialised with
// (channelName).
func (h *handlers) openSDK(c echo.Context, op contract.Op, body []byte, readErr error, req any) (*frontdoor.Call, error) {
	doc, refused := httpx.ValidJSON(h.Schemas, op.Request, body, readErr)
	if refused != nil {
		return nil, refuseIssue(refused)
	}
	if err := doc.Into(req); err != nil { // the one decode serves the schema and req
		return nil, bad("body: %v", err)
	}
	name := httpx.Member(doc, "channelName")
	ch, sc, ok := h.Channels.ByChannelName(name)
	if !ok {
		return nil, bad("channelName %q is not a channel of the active scenario", name)
	}
	call := &frontdoor.Call{Op: op, Channel: ch, Scenario: sc, VirtualID: httpx.Member(doc, "virtualId")}
	if h.LiveSession != nil {
		live, err := h.LiveSession(ch.Name, call.VirtualID)
		if err != nil {
			return nil, err
		}
		if !live {
			msg := fmt.Sprintf("shared box: virtualId %q has no live session of channel %s (GenerateSessionInfoV2 first)", call.VirtualID, ch.Name)
			return nil, &httpx.Error{Status: http.StatusUnauthorized, Reason: msg, Body: issueAnswer{Status: false, Message: msg}}
		}
	}
	return call, nil
}

// checkIssue holds the parameter rules of getScratchCardDetails /
// sendRewardCardRequest (SDK-1).
func (h *handlers) checkIssue(_ echo.Context, call *frontdoor.Call, req *issueRequest) error {
	sc := call.Scenario
	var err error
	if req.amount, err = cards.ParseAmount(string(req.Amount)); err != nil {
		return bad("amount: %v", err)
	}
	if _, err := time.ParseInLocation("02012006150405", req.DateAndTime, sc.Location); err != nil {
		return bad("dateandtime: %q is not a valid DDMMYYYYHHMMSS", req.DateAndTime)
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
	if req.params, err = sdkParams(req.AdditionalParams); err != nil {
		return bad("additionalParams: %v", err)
	}
	return nil
}

// notEligible is the SDK's not-eligible answer.
func notEligible(c echo.Context, reason string) error {
	httpx.SetReason(c, reason)
	return c.JSON(http.StatusOK, issueAnswer{Message: "failure"})
}

// faults is the SDK's dialect of injected faults (inject.Plain): its
// Internal Error body, its not-eligible answer, and signature-mismatch in
// its error shape (HTTP 400, status false).
func (h *handlers) faults(c echo.Context, _ *frontdoor.Call, act fault.Action) (bool, error) {
	return inject.Plain(c, act, inject.Shapes{
		Internal:    issueAnswer{Message: "Internal Error"},
		NotEligible: func() error { return notEligible(c, "injected fault: not-eligible") },
		SignatureMismatch: func() error {
			return &httpx.Error{Status: http.StatusBadRequest, Reason: "injected fault: signature-mismatch",
				Body: issueAnswer{Message: "Signature Mismatch!"}}
		},
	})
}

// issue is client issuance (SDK-1): cards.Service.Issue, GetReward's
// issuing code, idempotent on extTransactionId.
func (h *handlers) issue(c echo.Context, call *frontdoor.Call, req *issueRequest) error {
	sc, ch := call.Scenario, call.Channel
	res, err := h.Cards.Issue(cards.IssueRequest{
		Scenario: sc, Channel: ch.Name, VirtualID: req.VirtualID, Source: cards.SourceSDK,
		ExtTransactionID: req.ExtTransactionID, Trigger: req.Trigger, SubTrigger: req.SubTrigger,
		Amount: &req.amount, DateAndTime: req.DateAndTime, Params: req.params,
	})
	if refusal.Is(err, refusal.Conflict) {
		return refuseIssue(err)
	}
	if err != nil {
		return err
	}
	if len(res.Cards) == 0 {
		return notEligible(c, "not eligible: "+res.Reason)
	}
	if res.Duplicate {
		httpx.SetReason(c, "duplicate extTransactionId "+req.ExtTransactionID+": the cards it created, none new")
	}
	first, last := res.Cards[0], res.Cards[len(res.Cards)-1]
	base := httpx.BaseURL(c, h.PublicURL)
	ans := issueAnswer{Status: true, Message: "success", Banner: cards.Absolute(base, cards.Banner(sc, first)), DeepLink: h.DeepLink(first)}
	if p, ok := sc.PopupFor(ch.Name, first.CampaignID, req.amount); ok {
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
