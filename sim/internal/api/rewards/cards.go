package rewards

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/frontdoor"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/inject"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/signedcall"
	"github.com/rewardsim/rewardsim/sim/internal/token"
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

// tokenChannel admits the bearer token op's scheme takes (AUTH-1,
// AUTH-2, TOK-3) and finds its channel.
func (h *handlers) tokenChannel(c echo.Context, op contract.Op) (model.Token, model.Channel, *scenario.Scenario, error) {
	kind := model.ReferenceToken
	if op.Auth == contract.BearerUser {
		kind = model.UserToken
	}
	tok, err := httpx.BearerToken(c, h.Tokens, kind)
	if err != nil {
		return tok, model.Channel{}, nil, err
	}
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

type getRewardRequest struct {
	ChannelName      string          `json:"channelName"`
	VirtualID        string          `json:"virtualId"`
	Trigger          string          `json:"triggerEventType"`
	SubTrigger       string          `json:"subTriggerEventType"`
	ExtTransactionID string          `json:"extTransactionId"`
	Amount           json.Number     `json:"amount"`
	DateAndTime      string          `json:"dateandtime"`
	AdditionalParams json.RawMessage `json:"additionalParams"`
}

// openBearer is the bearer schemes' way in: the token admitted, its
// channel, and its user.
func (h *handlers) openBearer(c echo.Context, op contract.Op) (*frontdoor.Call, error) {
	tok, ch, sc, err := h.tokenChannel(c, op)
	if err != nil {
		return nil, err
	}
	httpx.NoteAdmitted(c, ch.Name, ch.ChannelID)
	return &frontdoor.Call{Op: op, Channel: ch, Scenario: sc, Token: tok, VirtualID: tok.VirtualID}, nil
}

// openJSON is openBearer with a JSON body checked against op's schema
// and decoded into req; the call is for the body's virtualId.
func (h *handlers) openJSON(c echo.Context, op contract.Op, body []byte, readErr error, req any) (*frontdoor.Call, error) {
	call, err := h.openBearer(c, op)
	if err != nil {
		return nil, err
	}
	doc, refused := httpx.ValidJSON(h.Signed.Schemas, op.Request, body, readErr)
	if refused != nil {
		return nil, refuse(call, refused)
	}
	if err := doc.Into(req); err != nil { // the one decode serves the schema and req
		return nil, refuse(call, refusal.New(refusal.Invalid, "body: %v", err))
	}
	call.VirtualID = httpx.Member(doc, "virtualId")
	return call, nil
}

// failureBody is a rewards-host JSON operation's answer carrying message
// and no cards: the shape of its refusals and of its Internal Error.
func failureBody(op, message string) any {
	if op == contract.OpListCards {
		return listAnswer{Message: message, Rewards: []cards.WireCard{}}
	}
	return getRewardAnswer{Message: message, Rewards: []cards.WireCard{}, Clicktrack: []string{}}
}

// refuse writes a refused call of the rewards host's JSON dialect: the
// status of switches.cards.invalidRequestStatus (413 for a body too
// large), the operation's failure body.
func refuse(call *frontdoor.Call, err error) error {
	return &httpx.Error{Status: httpx.InvalidStatus(err, call.Scenario.Switches.Cards.InvalidRequestStatus), Reason: err.Error(),
		Body: failureBody(call.Op.Name, err.Error())}
}

// notEligible is GetReward's not-eligible answer.
func notEligible(c echo.Context, reason string) error {
	httpx.SetReason(c, reason)
	return c.JSON(http.StatusOK, getRewardAnswer{Message: "failure", Rewards: []cards.WireCard{}, Clicktrack: []string{}})
}

// checkGetReward refuses a channelName that is not the token's channel
// (switches.cards.channelMismatch), before any fault.
func (h *handlers) checkGetReward(_ echo.Context, call *frontdoor.Call, req *getRewardRequest) error {
	if req.ChannelName != call.Channel.Name && call.Scenario.Switches.Cards.ChannelMismatch == scenario.ChannelRefuse {
		return refuse(call, refusal.New(refusal.Invalid, "channelName %q is not the channel of the reference token (%s)", req.ChannelName, call.Channel.Name))
	}
	return nil
}

// getReward is GetReward (GR-1 to GR-8).
func (h *handlers) getReward(c echo.Context, call *frontdoor.Call, req *getRewardRequest) error {
	sc, ch := call.Scenario, call.Channel
	sw := sc.Switches.Cards
	bad := func(format string, a ...any) error {
		return refuse(call, refusal.New(refusal.Invalid, format, a...))
	}
	var amount *float64
	if req.Amount == "" {
		if sw.AmountRequired {
			return bad("amount: is required (switches.cards.amountRequired)")
		}
	} else {
		a, err := cards.ParseAmount(string(req.Amount))
		if err != nil {
			return bad("amount: %v", err)
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
			return bad("dateandtime: %q is not DDMMYYYYHHMMSS", req.DateAndTime)
		}
	}
	params, err := additionalParams(req.AdditionalParams, sw.NestedAdditionalParams == scenario.NestedAccept)
	if err != nil {
		return bad("additionalParams: %v", err)
	}
	res, err := h.Cards.Issue(cards.IssueRequest{
		Scenario: sc, Channel: ch.Name, VirtualID: req.VirtualID, Source: cards.SourceGetReward,
		ExtTransactionID: req.ExtTransactionID, Trigger: req.Trigger, SubTrigger: req.SubTrigger,
		Amount: amount, DateAndTime: when, Params: params,
	})
	if refusal.Is(err, refusal.Conflict) {
		return refuse(call, err)
	}
	if err != nil {
		return err
	}
	if len(res.Cards) == 0 {
		return notEligible(c, "not eligible: "+res.Reason)
	}
	noteDuplicate(c, res, req.ExtTransactionID)
	base := httpx.BaseURL(c, h.PublicURL)
	if httpx.Indented(c) {
		wire, clicks := cards.Wire(base, sc, res.Cards)
		return c.JSON(http.StatusOK, getRewardAnswer{Status: true, Message: "success", Rewards: wire, Clicktrack: clicks})
	}
	return httpx.WriteJSON(c, func(b []byte) []byte { return appendGetRewardAnswer(b, base, sc.Location, res.Cards) })
}

// appendGetRewardAnswer appends what c.JSON wrote for the getRewardAnswer
// of cards issued (or found again), newline included;
// TestAppendGetRewardAnswer compares them.
func appendGetRewardAnswer(b []byte, base string, loc *time.Location, list []model.Card) []byte {
	if !slices.IsSortedFunc(list, cards.ListingCmp) {
		list = slices.Clone(list) // sorted once for both arrays
		slices.SortStableFunc(list, cards.ListingCmp)
	}
	b = append(b, `{"status":true,"message":"success","rewards":`...)
	b = cards.AppendWire(b, base, loc, list)
	b = append(b, `,"clicktrack":`...)
	b = cards.AppendClickTrack(b, base, list)
	return append(b, "}\n"...)
}

// noteDuplicate names a repeated extTransactionId in the reason header:
// the answer is the cards it created, none new (GR-4, SDK-1).
func noteDuplicate(c echo.Context, res cards.IssueResult, ext string) {
	if res.Duplicate {
		httpx.SetReason(c, "duplicate extTransactionId "+ext+": the cards it created, none new")
	}
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

type revealRequest struct {
	RewardID    string `json:"rewardId"`
	VirtualID   string `json:"virtualId"`
	ChannelName string `json:"channelName"`
	id          uint64 // RewardID, checked
}

// openEnvelope is FetchRewardInfo's way in: the user token, then an
// envelope whose CHANNELID is the token's channel, SIGN checked as
// switches.cards.fetchSignRequired says, the payload decoded into req.
func (h *handlers) openEnvelope(c echo.Context, op contract.Op, body []byte, readErr error, req any) (*frontdoor.Call, error) {
	call, err := h.openBearer(c, op)
	if err != nil {
		return nil, err
	}
	sc, ch := call.Scenario, call.Channel
	if err := signedcall.ReadFailure(sc, readErr); err != nil {
		return nil, err
	}
	if call.Envelope, err = h.Signed.Envelope(sc, op, body); err != nil {
		return nil, err
	}
	env := &call.Envelope
	if env.CHANNELID != ch.ChannelID {
		return nil, signedcall.Invalid(sc, fmt.Sprintf("CHANNELID %q is not the channel of the user token (%s)", env.CHANNELID, ch.ChannelID))
	}
	switch {
	case env.SIGN == "" && *sc.Switches.Cards.FetchSignRequired:
		return nil, signedcall.Failure(sc, 0, signedcall.SignatureMismatch, "SIGN is missing (switches.cards.fetchSignRequired is true)")
	case env.SIGN != "":
		if err := envelope.Verify(ch.PublicKey, env.BDATA, env.SIGN); err != nil {
			return nil, signedcall.Failure(sc, 0, signedcall.SignatureMismatch, err.Error())
		}
	}
	if call.BDATA, err = envelope.Decode(env.BDATA); err != nil {
		return nil, signedcall.Invalid(sc, err.Error())
	}
	doc, err := h.Signed.Schemas.DecodeValid(op.RequestBDATA, call.BDATA)
	if err == nil {
		err = doc.Into(req) // the one decode serves the schema and req
	}
	if err != nil {
		return nil, signedcall.Invalid(sc, "BDATA: "+err.Error())
	}
	return call, nil
}

// checkReveal checks what the schema cannot: the payload's channel and
// user are the token's, and rewardId is a card number.
func (h *handlers) checkReveal(_ echo.Context, call *frontdoor.Call, req *revealRequest) error {
	sc, ch := call.Scenario, call.Channel
	if req.ChannelName != ch.Name {
		return signedcall.Invalid(sc, fmt.Sprintf("channelName %q is not the channel of the user token (%s)", req.ChannelName, ch.Name))
	}
	if req.VirtualID != call.Token.VirtualID {
		return signedcall.Invalid(sc, "virtualId is not the user of the user token")
	}
	id, err := strconv.ParseUint(req.RewardID, 10, 64)
	if err != nil || id == 0 {
		return signedcall.Invalid(sc, fmt.Sprintf("rewardId %q is not a card number", req.RewardID))
	}
	req.id = id
	return nil
}

// fetchRewardInfo is FetchRewardInfo (REV-1 to REV-6): the first reveal
// picks the reward.
func (h *handlers) fetchRewardInfo(c echo.Context, call *frontdoor.Call, req *revealRequest) error {
	sc, ch, id := call.Scenario, call.Channel, req.id
	sw := sc.Switches.Cards
	card, first, err := h.Cards.Reveal(sc, ch.Name, call.Token.VirtualID, id)
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
		return h.Signed.Reply(c, call, payload)
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

type listRequest struct{ page, limit int }

// checkList reads the query: virtualId, when given, is the token's user;
// page and limit are positive and bounded (switches.cards.listBadValues).
func (h *handlers) checkList(c echo.Context, call *frontdoor.Call, req *listRequest) error {
	sw := call.Scenario.Switches.Cards
	bad := func(msg string) error { return refuse(call, refusal.New(refusal.Invalid, "%s", msg)) }
	if v := c.QueryParam("virtualId"); v != "" && v != call.Token.VirtualID {
		return bad("virtualId is not the user of the user token")
	}
	clamp := sw.ListBadValues == scenario.ListClamp
	const maxPage = 1_000_000
	var err error
	if req.page, err = queryInt(c, "page", 1, maxPage, 1, clamp); err != nil {
		return bad(err.Error())
	}
	if req.limit, err = queryInt(c, "limit", sw.ListDefaultLimit, sw.ListMaxLimit, sw.ListDefaultLimit, clamp); err != nil {
		return bad(err.Error())
	}
	return nil
}

// listCards is GetAllScratchCardsByUserId (LIST-1, REV-4): the token's
// user's cards, unscratched first. The answer is written without
// reflection, from the stored records in place (appendListAnswer); echo's
// indented form (?pretty, debug mode) still goes through c.JSON.
func (h *handlers) listCards(c echo.Context, call *frontdoor.Call, req *listRequest) error {
	channel, user, offset := call.Channel.Name, call.Token.VirtualID, (req.page-1)*req.limit
	base := httpx.BaseURL(c, h.PublicURL)
	if httpx.Indented(c) {
		list, total, err := h.Cards.List(channel, user, offset, req.limit)
		if err != nil {
			return err
		}
		wire, _ := cards.Wire(base, call.Scenario, list)
		return c.JSON(http.StatusOK, listAnswer{Status: true, Message: "success", Page: req.page, Limit: req.limit, Total: total, Rewards: wire})
	}
	loc := call.Scenario.Location
	return h.Cards.WithPage(channel, user, offset, req.limit, func(total int, views []model.CardView[[]byte]) error {
		return httpx.WriteJSON(c, func(b []byte) []byte {
			return appendListAnswer(b, req.page, req.limit, total, base, loc, views)
		})
	})
}

// appendListAnswer appends what c.JSON wrote for the listAnswer of a
// successful listing, newline included; TestAppendListAnswer compares them.
func appendListAnswer(b []byte, page, limit, total int, base string, loc *time.Location, list []model.CardView[[]byte]) []byte {
	b = append(b, `{"status":true,"message":"success","page":`...)
	b = strconv.AppendInt(b, int64(page), 10)
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, int64(limit), 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(total), 10)
	b = append(b, `,"rewards":`...)
	b = cards.AppendViews(b, base, loc, list)
	return append(b, "}\n"...)
}

// faults is the cards host's JSON dialect of injected faults
// (inject.Plain): each operation's Internal Error body, GetReward's
// not-eligible answer, and signature-mismatch as the bearer 401 (AUTH-2's
// shape).
func (h *handlers) faults(c echo.Context, call *frontdoor.Call, act fault.Action) (bool, error) {
	sh := inject.Shapes{
		Internal: failureBody(call.Op.Name, "Internal Error"),
		SignatureMismatch: func() error {
			// The words of a real refused token; the reason says injected.
			f := httpx.Unauthorized(token.ErrUnknown.Error())
			if act.Message != "" {
				f.Body = map[string]any{"status": false, "message": act.Message}
			}
			f.Reason = "injected fault: signature-mismatch"
			return f
		},
	}
	if call.Op.Name == contract.OpGetReward {
		sh.NotEligible = func() error { return notEligible(c, "injected fault: not-eligible") }
	}
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
		ch, _, ok := h.Channels.ByChannelName(channel)
		if !ok || err != nil {
			return &httpx.Error{Status: http.StatusNotFound, Body: map[string]string{"message": "no such card"}, Reason: "tracking URL names no known channel and rewardId"}
		}
		// The journal files the follow under its channel, as every call of
		// the channel (journal and report filters by channel find it).
		httpx.NoteCaller(c, ch.Name, ch.ChannelID, "")
		ok, err = h.Cards.Track(channel, model.TrackEvent{Kind: kind, Source: c.QueryParam("from"), RewardID: id})
		if err != nil {
			return err
		}
		if !ok {
			return &httpx.Error{Status: http.StatusNotFound, Body: map[string]string{"message": "no such card"}, Reason: "no such card"}
		}
		return c.NoContent(http.StatusNoContent)
	}
}
