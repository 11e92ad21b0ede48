package rewards

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/inject"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/signedcall"
)

// ChannelsByName finds a bearer token's channel and its scenario.
type ChannelsByName interface {
	ByChannelName(name string) (model.Channel, *scenario.Scenario, bool)
}

// AlreadyRevealed is the ERRORSTRING of a second reveal (REV-2, default).
const AlreadyRevealed = "Reward Already Revealed!"

// Tracking serves a tracking URL of kind (TRK-1). They are the
// simulator's own resources, not contract paths, so the composition root
// routes them on every public host: a URL handed out works wherever it points.
func Tracking(d Deps, kind string) echo.HandlerFunc { return (&handlers{d}).track(kind) }

// tokenChannel is the channel of the admitted bearer token.
func (h *handlers) tokenChannel(c echo.Context) (model.Token, model.Channel, *scenario.Scenario, error) {
	tok := httpx.TokenFrom(c)
	ch, sc, ok := h.Channels.ByChannelName(tok.Channel)
	if !ok {
		return tok, ch, sc, httpx.Unauthorized(fmt.Sprintf("the token's channel %q is not in the active scenario", tok.Channel))
	}
	return tok, ch, sc, nil
}

type getRewardAnswer struct {
	Status     bool             `json:"status"`
	Message    string           `json:"message"`
	Rewards    []cards.WireCard `json:"rewards"`
	Clicktrack []string         `json:"clicktrack"`
}

// getReward is GetReward (GR-1 to GR-8).
func (h *handlers) getReward(c echo.Context, op contract.Op) error {
	_, ch, sc, err := h.tokenChannel(c)
	if err != nil {
		return err
	}
	sw := sc.Switches.Cards
	bad := func(msg string) error {
		return &httpx.Error{Status: httpx.StatusFor(msg, sw.InvalidRequestStatus), Reason: msg,
			Body: getRewardAnswer{Message: msg, Rewards: []cards.WireCard{}, Clicktrack: []string{}}}
	}
	body, problem := httpx.ReadValidJSON(c, h.Signed.Schemas, op.Request)
	if problem != "" {
		return bad(problem)
	}
	var req struct {
		ChannelName      string          `json:"channelName"`
		VirtualID        string          `json:"virtualId"`
		Trigger          string          `json:"triggerEventType"`
		SubTrigger       string          `json:"subTriggerEventType"`
		ExtTransactionID string          `json:"extTransactionId"`
		Amount           json.Number     `json:"amount"`
		DateAndTime      string          `json:"dateandtime"`
		AdditionalParams json.RawMessage `json:"additionalParams"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		return bad("body: " + err.Error())
	}
	if req.ChannelName != ch.Name && sw.ChannelMismatch == scenario.ChannelRefuse {
		return bad(fmt.Sprintf("channelName %q is not the channel of the reference token (%s)", req.ChannelName, ch.Name))
	}
	notEligible := func(reason string) error {
		httpx.SetReason(c, reason)
		return c.JSON(http.StatusOK, getRewardAnswer{Message: "failure", Rewards: []cards.WireCard{}, Clicktrack: []string{}})
	}
	internal := getRewardAnswer{Message: "Internal Error", Rewards: []cards.WireCard{}, Clicktrack: []string{}}
	if stop, err := h.injectPlain(c, sc, fault.Call{Endpoint: contract.OpGetReward, Channel: ch.Name, VirtualID: req.VirtualID}, inject.Shapes{
		Internal: internal, NotEligible: func() error { return notEligible("injected fault: not-eligible") },
	}); stop {
		return err
	}
	var amount *float64
	if req.Amount == "" {
		if sw.AmountRequired {
			return bad("amount: is required (switches.cards.amountRequired)")
		}
	} else {
		a, err := cards.ParseAmount(string(req.Amount))
		if err != nil {
			return bad("amount: " + err.Error())
		}
		amount = &a
	}
	when := req.DateAndTime
	if _, err := time.ParseInLocation("02012006150405", when, sc.Location); err != nil {
		switch sw.DateAndTime {
		case scenario.DateTimeNow:
			when = clock.NowFor(h.Cards.Clock, req.ChannelName).In(sc.Location).Format("02012006150405")
		case scenario.DateTimeAccept:
		default:
			return bad(fmt.Sprintf("dateandtime: %q is not DDMMYYYYHHMMSS", req.DateAndTime))
		}
	}
	params, err := additionalParams(req.AdditionalParams, sw.NestedAdditionalParams == scenario.NestedAccept)
	if err != nil {
		return bad("additionalParams: " + err.Error())
	}
	res, err := h.Cards.Issue(cards.IssueRequest{
		Scenario: sc, Channel: ch.Name, VirtualID: req.VirtualID, Source: cards.SourceGetReward,
		ExtTransactionID: req.ExtTransactionID, Trigger: req.Trigger, SubTrigger: req.SubTrigger,
		Amount: amount, DateAndTime: when, Params: params,
	})
	if errors.Is(err, cards.ErrOtherUsersTxn) {
		return bad(err.Error())
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
	wire, clicks := cards.Wire(httpx.BaseURL(c, h.PublicURL), sc, res.Cards)
	return c.JSON(http.StatusOK, getRewardAnswer{Status: true, Message: "success", Rewards: wire, Clicktrack: clicks})
}

// additionalParams decodes the JSON-encoded string of GR-7 (or, when
// nested is allowed, an object) into string values.
func additionalParams(raw json.RawMessage, nested bool) (map[string]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	inner := []byte(raw)
	if raw[0] == '{' {
		if !nested {
			return nil, errors.New("is a nested object; send a JSON-encoded string (switches.cards.nestedAdditionalParams)")
		}
	} else {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		if strings.TrimSpace(s) == "" {
			return nil, nil
		}
		inner = []byte(s)
	}
	return cards.DecodeParams(inner, nil)
}

// fetchRewardInfo is FetchRewardInfo (REV-1 to REV-6): user token and an
// envelope; the first reveal picks the reward.
func (h *handlers) fetchRewardInfo(c echo.Context, op contract.Op) error {
	tok, ch, sc, err := h.tokenChannel(c)
	if err != nil {
		return err
	}
	sw := sc.Switches.Cards
	body, err := signedcall.ReadBody(c, sc)
	if err != nil {
		return err
	}
	if err := h.Signed.Schemas.ValidateJSON(op.Request, body); err != nil {
		return signedcall.Invalid(sc, "envelope: "+err.Error())
	}
	var env envelope.Envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return signedcall.Invalid(sc, "envelope: "+err.Error())
	}
	if env.CHANNELID != ch.ChannelID {
		return signedcall.Invalid(sc, fmt.Sprintf("CHANNELID %q is not the channel of the user token (%s)", env.CHANNELID, ch.ChannelID))
	}
	switch {
	case env.SIGN == "" && *sw.FetchSignRequired:
		return signedcall.Failure(sc, 0, signedcall.SignatureMismatch, "SIGN is missing (switches.cards.fetchSignRequired is true)")
	case env.SIGN != "":
		if err := envelope.Verify(ch.PublicKey, env.BDATA, env.SIGN); err != nil {
			return signedcall.Failure(sc, 0, signedcall.SignatureMismatch, err.Error())
		}
	}
	raw, err := envelope.Decode(env.BDATA)
	if err != nil {
		return signedcall.Invalid(sc, err.Error())
	}
	if err := h.Signed.Schemas.ValidateJSON(op.RequestBDATA, raw); err != nil {
		return signedcall.Invalid(sc, "BDATA: "+err.Error())
	}
	var req struct {
		RewardID    string `json:"rewardId"`
		VirtualID   string `json:"virtualId"`
		ChannelName string `json:"channelName"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		return signedcall.Invalid(sc, "BDATA: "+err.Error())
	}
	if req.ChannelName != ch.Name {
		return signedcall.Invalid(sc, fmt.Sprintf("channelName %q is not the channel of the user token (%s)", req.ChannelName, ch.Name))
	}
	if req.VirtualID != tok.VirtualID {
		return signedcall.Invalid(sc, "virtualId is not the user of the user token")
	}
	id, err := strconv.ParseUint(req.RewardID, 10, 64)
	if err != nil || id == 0 {
		return signedcall.Invalid(sc, fmt.Sprintf("rewardId %q is not a card number", req.RewardID))
	}
	if _, _, err := h.Signed.Inject(c, sc, fault.Call{Endpoint: op.Name, Channel: ch.Name, VirtualID: tok.VirtualID}); err != nil {
		return err
	}
	card, first, err := h.Cards.Reveal(sc, ch.Name, tok.VirtualID, id)
	switch {
	case errors.Is(err, cards.ErrNoCard), errors.Is(err, cards.ErrNotYours):
		f := signedcall.Invalid(sc, fmt.Sprintf("this user has no card %d", id))
		f.Reason = err.Error()
		return f
	case errors.Is(err, cards.ErrCardExpired):
		return signedcall.Invalid(sc, fmt.Sprintf("card %d has expired", id))
	case err != nil:
		return err
	}
	var payload any
	if !first {
		if sw.SecondReveal != scenario.SecondRevealStatusFalse {
			return signedcall.Failure(sc, 0, AlreadyRevealed, fmt.Sprintf("card %d was revealed before: the reward is returned once (REV-2)", id))
		}
		payload = cards.AlreadyRevealed{Message: "already revealed", RewardID: id, IsAlreadyRewarded: true}
	} else {
		payload = cards.RevealedWire(httpx.BaseURL(c, h.PublicURL), sc, card)
	}
	if *sw.FetchAnswerSigned {
		return h.Signed.Reply(c, &signedcall.Call{Op: op, Channel: ch, Scenario: sc}, payload)
	}
	bdata, err := envelope.Encode(payload)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"CHANNELID": sc.Service.ChannelID, "BDATA": bdata})
}

type listAnswer struct {
	Status  bool             `json:"status"`
	Message string           `json:"message"`
	Page    int              `json:"page"`
	Limit   int              `json:"limit"`
	Total   int              `json:"total"`
	Rewards []cards.WireCard `json:"rewards"`
}

// listCards is GetAllScratchCardsByUserId (LIST-1, REV-4): the token's
// user's cards, unscratched first.
func (h *handlers) listCards(c echo.Context, _ contract.Op) error {
	tok, ch, sc, err := h.tokenChannel(c)
	if err != nil {
		return err
	}
	sw := sc.Switches.Cards
	bad := func(msg string) error {
		return &httpx.Error{Status: httpx.StatusFor(msg, sw.InvalidRequestStatus), Reason: msg, Body: listAnswer{Message: msg, Rewards: []cards.WireCard{}}}
	}
	if v := c.QueryParam("virtualId"); v != "" && v != tok.VirtualID {
		return bad("virtualId is not the user of the user token")
	}
	clamp := sw.ListBadValues == scenario.ListClamp
	const maxPage = 1_000_000
	page, err := queryInt(c, "page", 1, maxPage, 1, clamp)
	if err != nil {
		return bad(err.Error())
	}
	limit, err := queryInt(c, "limit", sw.ListDefaultLimit, sw.ListMaxLimit, sw.ListDefaultLimit, clamp)
	if err != nil {
		return bad(err.Error())
	}
	internal := listAnswer{Message: "Internal Error", Rewards: []cards.WireCard{}}
	if stop, err := h.injectPlain(c, sc, fault.Call{Endpoint: contract.OpListCards, Channel: ch.Name, VirtualID: tok.VirtualID}, inject.Shapes{Internal: internal}); stop {
		return err
	}
	list, total, err := h.Cards.List(ch.Name, tok.VirtualID, (page-1)*limit, limit)
	if err != nil {
		return err
	}
	wire, _ := cards.Wire(httpx.BaseURL(c, h.PublicURL), sc, list)
	return c.JSON(http.StatusOK, listAnswer{Status: true, Message: "success", Page: page, Limit: limit, Total: total, Rewards: wire})
}

// injectPlain decides a fault rule for a bearer card endpoint (the
// control API's, then the scenario's) and carries it out (inject.Plain);
// signature-mismatch is the bearer 401 (AUTH-2's shape).
func (h *handlers) injectPlain(c echo.Context, sc *scenario.Scenario, call fault.Call, sh inject.Shapes) (stop bool, err error) {
	act, fired := fault.First(h.Signed.Faults, sc.Faults, call)
	if !fired {
		return false, nil
	}
	sh.SignatureMismatch = func() error { return httpx.Unauthorized("injected fault: signature-mismatch") }
	return inject.Plain(c, act, sh)
}

// queryInt reads a positive integer query parameter: absent is def; a bad
// value is an error, or def (not a positive integer) or hi (too large)
// when clamping.
func queryInt(c echo.Context, name string, def, hi, fallback int, clamp bool) (int, error) {
	s := c.QueryParam(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	switch {
	case err != nil || n < 1:
		if clamp {
			return fallback, nil
		}
		return 0, fmt.Errorf("%s: %q is not a positive integer", name, s)
	case n > hi:
		if clamp {
			return hi, nil
		}
		return 0, fmt.Errorf("%s: %d is over the maximum %d", name, n, hi)
	}
	return n, nil
}

// track records a GET of a tracking URL (TRK-1). The answer is 204; an
// unknown card is 404 and not recorded.
func (h *handlers) track(kind string) echo.HandlerFunc {
	return func(c echo.Context) error {
		channel := c.QueryParam("channel")
		id, err := strconv.ParseUint(c.QueryParam("rewardId"), 10, 64)
		if _, _, ok := h.Channels.ByChannelName(channel); !ok || err != nil {
			return &httpx.Error{Status: http.StatusNotFound, Body: map[string]string{"message": "no such card"}, Reason: "tracking URL names no known channel and rewardId"}
		}
		ok, err := h.Cards.Track(channel, model.TrackEvent{Kind: kind, Source: c.QueryParam("from"), RewardID: id})
		if err != nil {
			return err
		}
		if !ok {
			return &httpx.Error{Status: http.StatusNotFound, Body: map[string]string{"message": "no such card"}, Reason: "no such card"}
		}
		return c.NoContent(http.StatusNoContent)
	}
}
