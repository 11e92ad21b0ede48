// Package hotdeals serves the coupon host: getCatalogue, fetchCouponCode,
// getUserCoupons and the coupons' click-and-redirect URLs (sections 4.9,
// 4.10, 7; CPN-*, AUTH-3). Every call authenticates with the API-key
// headers; every answer carries its status (and errorCode) in the body.
package hotdeals

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/inject"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
	"github.com/rewardsim/rewardsim/sim/internal/state"
)

// Channels finds a channel and its governing scenario.
type Channels interface {
	ByChannelID(id string) (model.Channel, *scenario.Scenario, bool)
	ByChannelName(name string) (model.Channel, *scenario.Scenario, bool)
	Active() *scenario.Scenario
}

// Store is the durable coupon state.
type Store interface {
	ClaimCoupon(state.ClaimRequest) (state.ClaimResult, error)
	UserCoupons(channel, offerID, virtualID string) ([]model.Coupon, error)
	ChannelUserCoupons(channel, virtualID string) ([]model.Coupon, error)
	CouponsIssued(channel, offerID string) (int, error)
	RecordCouponClick(model.CouponClick) error
}

// Deps is what the hotdeals host needs.
type Deps struct {
	Channels  Channels
	Schemas   *schema.Set
	Store     Store
	Clock     clock.Clock
	PublicURL string
	// Faults are the control API's run-time rules, consulted before the scenario's.
	Faults fault.Decider
}

// RedirectPrefix is where coupon URLs are served (CPN-8).
const RedirectPrefix = "/hotdeals/r/"

// Error codes of section 7, and the simulator's duplicate rejection.
const (
	CodeInvalidRequest = "INVALID_REQUEST"
	CodeUnauthorized   = "UNAUTHORIZED"
	CodeNonEligible    = "NON_ELIGIBLE"
	CodeInvalidOffer   = "INVALID_OFFER"
	CodeExhausted      = "COUPON_EXHAUSTED"
	CodeDuplicate      = "DUPLICATE_TRANSACTION"
	CodeLimitReached   = "MAX_LIMIT_REACHED"
	CodeInternal       = "INTERNAL_ERROR"
)

var codeStatus = map[string]int{
	CodeInvalidRequest: 400, CodeUnauthorized: 401, CodeNonEligible: 403, CodeInvalidOffer: 404,
	CodeExhausted: 409, CodeDuplicate: 409, CodeLimitReached: 429, CodeInternal: 500,
}

// Fetched is the success message of the coupon host.
const Fetched = "Fetched Successfully"

// Register adds the hotdeals host's routes to e.
func Register(e *echo.Echo, d Deps) {
	if d.Channels == nil {
		return // host without coupon wiring
	}
	h := &handlers{d}
	for name, fn := range map[string]echo.HandlerFunc{
		contract.OpCatalogue:   h.catalogue,
		contract.OpFetchCoupon: h.fetch,
		contract.OpUserCoupons: h.userCoupons,
	} {
		op, ok := contract.ByName(name)
		if !ok {
			panic("contract has no operation " + name)
		}
		e.Add(op.Method, op.Path, fn)
	}
}

// RegisterRedirect adds the coupons' click-and-redirect URLs (CPN-8). The
// composition root adds them to every public host, like the other
// resources the simulator hands out URLs to.
func RegisterRedirect(e *echo.Echo, d Deps) {
	h := &handlers{d}
	e.GET(RedirectPrefix+":channel/:offer", h.redirect)
}

type handlers struct{ Deps }

// call is an authenticated, validated request.
type call struct {
	op       contract.Op
	channel  model.Channel
	scenario *scenario.Scenario
	body     []byte
	action   fault.Action
	fired    bool
}

// failure is an error answer in the coupon host's shape. The HTTP status
// follows switches.coupons.httpStatus (CPN-3).
func failure(sc *scenario.Scenario, code, msg string) *httpx.Error {
	status := codeStatus[code]
	httpStatus := http.StatusOK
	if sc.Switches.Coupons.HTTPStatus == scenario.StatusMirror {
		httpStatus = status
	}
	return &httpx.Error{
		Status: httpStatus,
		Body:   errorBody{Status: status, ErrorCode: code, Message: msg},
		Reason: strings.ToLower(code) + ": " + msg,
	}
}

func invalid(sc *scenario.Scenario, msg string) *httpx.Error {
	return failure(sc, CodeInvalidRequest, msg)
}

// open authenticates (AUTH-3), checks Content-Type and the body against
// the operation's request schema, checks channelName, decodes the body
// into dst and decides injected faults. Bad input is a 400 or 401 in the
// body, never a 5xx.
func (h *handlers) open(c echo.Context, name string, dst any) (*call, error) {
	op, _ := contract.ByName(name)
	req := c.Request()
	sc := h.Channels.Active()
	chID := req.Header.Get("X-CHANNELID")
	if chID == "" {
		return nil, failure(sc, CodeUnauthorized, "X-CHANNELID header is missing")
	}
	ch, chSc, ok := h.Channels.ByChannelID(chID)
	if !ok {
		return nil, failure(sc, CodeUnauthorized, fmt.Sprintf("X-CHANNELID %q is not a registered channel", chID))
	}
	sc = chSc
	if msg := checkAppKey(req.Header.Get(echo.HeaderAuthorization), ch); msg != "" {
		return nil, failure(sc, CodeUnauthorized, msg)
	}
	ct := req.Header.Get(echo.HeaderContentType)
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != echo.MIMEApplicationJSON {
		return nil, invalid(sc, fmt.Sprintf("Content-Type: must be application/json, got %q", ct))
	}
	body, err := httpx.ReadBody(c)
	if errors.Is(err, httpx.ErrTooLarge) {
		// 413 whatever httpStatus says, in body and header: as on every endpoint.
		return nil, &httpx.Error{Status: http.StatusRequestEntityTooLarge, Reason: "invalid_request: " + err.Error(),
			Body: errorBody{Status: http.StatusRequestEntityTooLarge, ErrorCode: CodeInvalidRequest, Message: err.Error()}}
	}
	if err != nil {
		return nil, invalid(sc, "body: could not be read")
	}
	generic, err := schema.DecodeJSON(body)
	if err != nil {
		return nil, invalid(sc, "body: "+err.Error())
	}
	if err := h.Schemas.Validate(op.Request, generic); err != nil {
		return nil, invalid(sc, err.Error())
	}
	if err := json.Unmarshal(body, dst); err != nil {
		return nil, invalid(sc, "body: "+err.Error())
	}
	fields, isObject := generic.(map[string]any)
	if !isObject { // the request schemas require an object; never panic on one that would not
		return nil, invalid(sc, "body: must be a JSON object")
	}
	if name, _ := fields["channelName"].(string); name != ch.Name {
		return nil, invalid(sc, fmt.Sprintf("channelName: %q is not the name of channel %s (matched case-sensitively)", name, ch.ChannelID))
	}
	cl := &call{op: op, channel: ch, scenario: sc, body: body}
	virtualID, _ := fields["virtualId"].(string)
	cl.action, cl.fired = fault.First(h.Faults, sc.Faults, fault.Call{Endpoint: op.Name, Channel: ch.Name, VirtualID: virtualID})
	if cl.fired && !cl.action.Commits() {
		if err := h.applyFault(c, sc, cl.action); err != nil {
			return nil, err
		}
	}
	return cl, nil
}

// checkAppKey checks `Authorization: ServiceAppKey <APP_KEY>:<SEC_KEY>`.
func checkAppKey(header string, ch model.Channel) string {
	if header == "" {
		return "Authorization header is missing"
	}
	scheme, cred, _ := strings.Cut(header, " ")
	if scheme != "ServiceAppKey" {
		return fmt.Sprintf("Authorization scheme %q is not ServiceAppKey", scheme)
	}
	app, sec, ok := strings.Cut(cred, ":")
	if !ok {
		return "Authorization credentials are not <APP_KEY>:<SEC_KEY>"
	}
	if ch.AppKey == "" || ch.SecKey == "" {
		return "channel " + ch.ChannelID + " has no appKey and secKey registered"
	}
	appOK := subtle.ConstantTimeCompare([]byte(app), []byte(ch.AppKey)) == 1
	secOK := subtle.ConstantTimeCompare([]byte(sec), []byte(ch.SecKey)) == 1
	if !appOK || !secOK {
		return "APP_KEY or SEC_KEY does not match channel " + ch.ChannelID
	}
	return ""
}

// applyFault renders an injected failure before any effect in the coupon
// host's shape (generic actions through inject.Generic), or waits out an
// injected delay.
func (h *handlers) applyFault(c echo.Context, sc *scenario.Scenario, act fault.Action) error {
	if stop, err := inject.Generic(c, act); stop {
		return err
	}
	switch act.Kind {
	case fault.InternalError:
		return failure(sc, CodeInternal, "injected fault: internal-error")
	case fault.SignatureMismatch:
		return failure(sc, CodeUnauthorized, "injected fault: signature-mismatch")
	case fault.NotEligible:
		return failure(sc, CodeNonEligible, "injected fault: not-eligible")
	case fault.CouponError:
		code := act.ErrorCode
		if _, known := codeStatus[code]; !known {
			code = CodeInternal
		}
		return failure(sc, code, "injected fault: coupon-error "+act.ErrorCode)
	case fault.MalformedBody:
		return &httpx.Error{Status: http.StatusOK, Body: []byte(`{"status":20`), Reason: "injected fault: malformed-body"}
	}
	return nil
}

// errorBody and okBody are the coupon host's answers, fields in wire order.
type errorBody struct {
	Status    int    `json:"status"`
	ErrorCode string `json:"errorCode"`
	Message   string `json:"message"`
}

type okBody struct {
	Status  int    `json:"status"`
	Message string `json:"message"`
	Data    any    `json:"data"`
}

// ok answers a success in the coupon host's shape.
func ok(c echo.Context, data any) error {
	return c.JSON(http.StatusOK, okBody{Status: http.StatusOK, Message: Fetched, Data: data})
}

func iso(sc *scenario.Scenario, t time.Time) string { return t.In(sc.Location).Format(time.RFC3339) }

// couponData is the data object of fetchCouponCode (section 2.9).
type couponData struct {
	ID               string `json:"id"`
	CouponCode       string `json:"coupon_code"`
	CouponValidity   string `json:"coupon_validity"`
	ExtTransactionID string `json:"extTransactionId"`
	PurchaseTime     string `json:"purchase_time"`
	URL              string `json:"url"`
	OrderID          string `json:"orderId,omitempty"`
}

func render(sc *scenario.Scenario, cp model.Coupon) couponData {
	d := couponData{
		ID: cp.OfferID, CouponCode: cp.Code, CouponValidity: iso(sc, cp.ValidUntil),
		ExtTransactionID: cp.ExtTransactionID, PurchaseTime: iso(sc, cp.PurchasedAt), URL: cp.URL,
	}
	if sc.Switches.Coupons.OrderID {
		d.OrderID = cp.OrderID
	}
	return d
}

// fetch is fetchCouponCode (CPN-1 to CPN-8).
func (h *handlers) fetch(c echo.Context) error {
	var req struct {
		OfferID          string          `json:"offerId"`
		VirtualID        string          `json:"virtualId"`
		ExtTransactionID string          `json:"extTransactionId"`
		CoinsUsed        json.RawMessage `json:"coinsUsed"`
	}
	cl, err := h.open(c, contract.OpFetchCoupon, &req)
	if err != nil {
		return err
	}
	sc, sw := cl.scenario, cl.scenario.Switches.Coupons
	coins, err := parseCoins(req.CoinsUsed, sw.CoinsAsNumber == scenario.Accept)
	if err != nil {
		return invalid(sc, "coinsUsed: "+err.Error())
	}
	offer, found := sc.Offers.Offer(cl.channel.Name, req.OfferID)
	if !found {
		return failure(sc, CodeInvalidOffer, fmt.Sprintf("offer %q is not an offer of channel %s", req.OfferID, cl.channel.Name))
	}
	if sw.CoinsMismatch == scenario.Refuse && coins != offer.Coins {
		return invalid(sc, fmt.Sprintf("coinsUsed: %d is not the price of offer %s (%d coins)", coins, offer.ID, offer.Coins))
	}
	now := h.Clock.Now()
	refuse, why := "", ""
	if open, reason := offer.Open(now); !open {
		refuse, why = CodeInvalidOffer, reason
	} else if !offer.Eligible(req.VirtualID) {
		refuse, why = CodeNonEligible, fmt.Sprintf("offer %s's targeting excludes virtualId %q", offer.ID, req.VirtualID)
	}
	base := httpx.BaseURL(c, h.PublicURL) + RedirectPrefix + url.PathEscape(cl.channel.Name) + "/" + url.PathEscape(offer.ID)
	res, err := h.Store.ClaimCoupon(state.ClaimRequest{
		Channel: cl.channel.Name, OfferID: offer.ID, VirtualID: req.VirtualID, ExtTransactionID: req.ExtTransactionID,
		Stock: offer.StockN, PurchaseLimit: offer.PurchaseLimit, CrossOffer: sw.CrossOffer, Refuse: refuse != "",
		New: func(seq int) model.Coupon {
			order := fmt.Sprintf("ORD-%s-%06d", offer.ID, seq)
			return model.Coupon{
				Code: offer.Code(seq), OrderID: order,
				URL:         base + "?" + offer.RedirectQuery(req.VirtualID, req.ExtTransactionID, order),
				PurchasedAt: now, ValidUntil: offer.ValidUntil(now),
			}
		},
	})
	if err != nil {
		return failure(sc, CodeInternal, "coupon store: "+err.Error())
	}
	if cl.fired && cl.action.Commits() {
		// CPN-4: the claim is committed; withhold the answer.
		httpx.NoteFault(c, cl.action.Kind)
		if cl.action.Kind == fault.CommitThenDrop {
			return httpx.Drop(c, "injected fault: commit-then-drop")
		}
		if err := httpx.Wait(c.Request().Context(), cl.action.Delay.D()); err != nil {
			return err // the client gave up: nothing to answer
		}
	}
	switch res.Outcome {
	case state.Delivered:
		return ok(c, render(sc, res.Coupon))
	case state.Replayed:
		if sw.Replay == scenario.ReplayReject {
			return failure(sc, CodeDuplicate, fmt.Sprintf("extTransactionId %q was already processed", req.ExtTransactionID))
		}
		return ok(c, render(sc, res.Coupon))
	case state.Exhausted:
		return failure(sc, CodeExhausted, "offer "+offer.ID+" has no coupons left")
	case state.LimitReached:
		return failure(sc, CodeLimitReached, fmt.Sprintf("virtualId %q reached purchase_limit %d of offer %s", req.VirtualID, offer.PurchaseLimit, offer.ID))
	case state.OtherOffer:
		return failure(sc, CodeDuplicate, fmt.Sprintf("extTransactionId %q was already used on offer %s", req.ExtTransactionID, res.OtherOffer))
	case state.OtherUser:
		return failure(sc, CodeDuplicate, fmt.Sprintf("extTransactionId %q was already used by another user", req.ExtTransactionID))
	default: // state.Refused
		return failure(sc, refuse, why)
	}
}

// parseCoins reads coinsUsed: a string of digits (the contract), or a
// JSON number when the switch accepts it. The schema already checked its form.
func parseCoins(raw json.RawMessage, acceptNumber bool) (int, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		if !acceptNumber {
			return 0, errors.New("must be sent as a string, got a number")
		}
		s = string(raw)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a whole number of coins", s)
	}
	return n, nil
}

// userCoupons is getUserCoupons (CPN-9): the reconciliation path.
func (h *handlers) userCoupons(c echo.Context) error {
	var req struct {
		OfferID   string `json:"offerId"`
		VirtualID string `json:"virtualId"`
	}
	cl, err := h.open(c, contract.OpUserCoupons, &req)
	if err != nil {
		return err
	}
	sc := cl.scenario
	// Without offerId: the user's coupons of every offer (the contract
	// describes the call "for that user and offer"; both readings serve).
	var list []model.Coupon
	if req.OfferID == "" {
		list, err = h.Store.ChannelUserCoupons(cl.channel.Name, req.VirtualID)
	} else {
		list, err = h.Store.UserCoupons(cl.channel.Name, req.OfferID, req.VirtualID)
	}
	if err != nil {
		return failure(sc, CodeInternal, "coupon store: "+err.Error())
	}
	type entry struct {
		couponData
		State         string `json:"state"`
		InvalidatedAt string `json:"invalidatedAt,omitempty"`
		Reason        string `json:"reason,omitempty"`
	}
	now := h.Clock.Now()
	out := make([]entry, 0, len(list))
	for _, cp := range list {
		e := entry{couponData: render(sc, cp), State: cp.State(now)}
		if e.State == model.CouponInvalidated {
			e.InvalidatedAt, e.Reason = iso(sc, cp.InvalidatedAt), cp.InvalidReason
		}
		out = append(out, e)
	}
	return ok(c, struct {
		OfferID   string  `json:"offerId,omitempty"`
		VirtualID string  `json:"virtualId"`
		Coupons   []entry `json:"coupons"`
	}{req.OfferID, req.VirtualID, out})
}

// catalogue is getCatalogue (CPN-10): the channel's open offers, only
// those whose targeting admits virtualId when one is given.
func (h *handlers) catalogue(c echo.Context) error {
	var req struct {
		VirtualID string `json:"virtualId"`
	}
	cl, err := h.open(c, contract.OpCatalogue, &req)
	if err != nil {
		return err
	}
	sc := cl.scenario
	type item struct {
		ID            string `json:"id"`
		Title         string `json:"title"`
		Description   string `json:"description,omitempty"`
		Coins         int    `json:"coins"`
		Stock         int    `json:"stock"`
		PurchaseLimit int    `json:"purchase_limit"`
		ValidFrom     string `json:"valid_from,omitempty"`
		ValidTo       string `json:"valid_to,omitempty"`
	}
	now := h.Clock.Now()
	out := []item{}
	for _, o := range sc.OfferList(cl.channel.Name) {
		if open, _ := o.Open(now); !open || (req.VirtualID != "" && !o.Eligible(req.VirtualID)) {
			continue
		}
		issued, err := h.Store.CouponsIssued(cl.channel.Name, o.ID)
		if err != nil {
			return failure(sc, CodeInternal, "coupon store: "+err.Error())
		}
		it := item{ID: o.ID, Title: o.Title, Description: o.Description, Coins: o.Coins,
			Stock: max(o.StockN-issued, 0), PurchaseLimit: o.PurchaseLimit}
		from, to := o.Window()
		if !from.IsZero() {
			it.ValidFrom = iso(sc, from)
		}
		if !to.IsZero() {
			it.ValidTo = iso(sc, to)
		}
		out = append(out, it)
	}
	return ok(c, struct {
		Offers []item `json:"offers"`
	}{out})
}

// redirect serves a coupon's click-and-redirect URL (CPN-8): the follow
// is recorded, then redirected to the offer's target.
func (h *handlers) redirect(c echo.Context) error {
	chName, offerID := c.Param("channel"), c.Param("offer")
	_, sc, _ := h.Channels.ByChannelName(chName)
	offer, found := sc.Offers.Offer(chName, offerID)
	if !found {
		return &httpx.Error{Status: http.StatusNotFound, Body: map[string]string{"message": "no such offer"},
			Reason: fmt.Sprintf("coupon url for unknown offer %s/%s", chName, offerID)}
	}
	click := model.CouponClick{Channel: chName, OfferID: offerID, Query: c.Request().URL.RawQuery, At: h.Clock.Now()}
	if err := h.Store.RecordCouponClick(click); err != nil {
		return err
	}
	return c.Redirect(http.StatusFound, offer.RedirectTarget())
}
