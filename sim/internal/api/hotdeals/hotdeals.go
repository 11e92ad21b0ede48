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
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/coupons"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/frontdoor"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/inject"
	"github.com/rewardsim/rewardsim/sim/internal/jsonw"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

// Channels finds a channel and its governing scenario.
type Channels interface {
	ByChannelID(id string) (model.Channel, *scenario.Scenario, bool)
	ByChannelName(name string) (model.Channel, *scenario.Scenario, bool)
	Active() *scenario.Scenario
}

// Deps is what the hotdeals host needs.
type Deps struct {
	Channels  Channels
	Schemas   *schema.Set
	Coupons   *coupons.Service
	PublicURL string
	Door      *frontdoor.Door
	// SharedBox: a coupon URL, which carries no credential, is followed
	// only when it names a coupon the channel delivered (docs/security.md).
	SharedBox bool
	// KnownSecKey is told a channel's secKey a call proved (the journal
	// masks it wherever it appears); nil: nobody is told.
	KnownSecKey func(secKey string)
}

// RedirectPrefix is where coupon URLs are served (CPN-8).
const RedirectPrefix = coupons.RedirectPrefix

// Error codes of section 7, and the simulator's duplicate rejection.
const (
	CodeInvalidRequest = coupons.CodeInvalidRequest
	CodeUnauthorized   = "UNAUTHORIZED"
	CodeNonEligible    = coupons.CodeNonEligible
	CodeInvalidOffer   = coupons.CodeInvalidOffer
	CodeExhausted      = coupons.CodeExhausted
	CodeDuplicate      = coupons.CodeDuplicate
	CodeLimitReached   = coupons.CodeLimitReached
	CodeInternal       = "INTERNAL_ERROR"
)

var codeStatus = map[string]int{
	CodeInvalidRequest: 400, CodeUnauthorized: 401, CodeNonEligible: 403, CodeInvalidOffer: 404,
	CodeExhausted: 409, CodeDuplicate: 409, CodeLimitReached: 429, CodeInternal: 500,
}

// Fetched is the success message of the coupon host.
const Fetched = "Fetched Successfully"

// Handlers are the hotdeals host's operations.
func Handlers(d Deps) httpx.OpHandlers {
	h := &handlers{d}
	return httpx.OpHandlers{
		contract.OpCatalogue:   frontdoor.Handle(d.Door, frontdoor.Endpoint[catalogueRequest]{Serve: h.catalogue}),
		contract.OpFetchCoupon: frontdoor.Handle(d.Door, frontdoor.Endpoint[claimRequest]{Serve: h.fetch}),
		contract.OpUserCoupons: frontdoor.Handle(d.Door, frontdoor.Endpoint[userCouponsRequest]{Serve: h.userCoupons}),
	}
}

// Opener is the ServiceAppKey scheme's way in.
func Opener(d Deps) frontdoor.Opener { return (&handlers{d}).open }

// Dialect is the coupon host's dialect of injected faults.
func Dialect(d Deps) frontdoor.Dialect { return (&handlers{d}).faults }

// Failure is the coupon host's answer to a failure of the simulator
// itself (a frontdoor.Failure): its INTERNAL_ERROR body.
func Failure(contract.Op, *frontdoor.Call) *httpx.Error {
	return &httpx.Error{Body: errorBody{Status: codeStatus[CodeInternal], ErrorCode: CodeInternal, Message: "internal simulator error"}}
}

// RedirectRoute is the route of the coupons' click-and-redirect URLs.
const RedirectRoute = RedirectPrefix + ":channel/:offer"

// Redirect serves the coupons' click-and-redirect URLs (CPN-8,
// RedirectRoute). The composition root routes it on every public host,
// like the other resources the simulator hands out URLs to.
func Redirect(d Deps) echo.HandlerFunc { return (&handlers{d}).redirect }

type handlers struct{ Deps }

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

// open is the ServiceAppKey scheme's way in (a frontdoor.Opener): it
// authenticates (AUTH-3), checks Content-Type and the body against the
// operation's request schema, checks channelName and decodes the body
// into dst. Bad input is a 400 or 401 in the body, never a 5xx.
func (h *handlers) open(c echo.Context, op contract.Op, body []byte, readErr error, dst any) (*frontdoor.Call, error) {
	req := c.Request()
	// Without a usable X-CHANNELID, the body's channelName still picks
	// whose switches shape the 401 (it authenticates nothing).
	chID := req.Header.Get("X-CHANNELID")
	if chID == "" {
		return nil, failure(h.bodyScenario(body), CodeUnauthorized, "X-CHANNELID header is missing")
	}
	ch, sc, ok := h.Channels.ByChannelID(chID)
	if !ok {
		return nil, failure(h.bodyScenario(body), CodeUnauthorized, fmt.Sprintf("X-CHANNELID %q is not a registered channel", chID))
	}
	sec, msg := checkAppKey(req.Header.Get(echo.HeaderAuthorization), ch)
	if msg != "" {
		return nil, failure(sc, CodeUnauthorized, msg)
	}
	httpx.NoteAdmitted(c, ch.Name, ch.ChannelID)
	// A run-time channel's store keeps only a hash: a matching call is
	// how its secKey is known again after a restart.
	if h.KnownSecKey != nil {
		h.KnownSecKey(sec)
	}
	ct := req.Header.Get(echo.HeaderContentType)
	if !isJSON(ct) {
		return nil, invalid(sc, fmt.Sprintf("Content-Type: must be application/json, got %q", ct))
	}
	if errors.Is(readErr, httpx.ErrTooLarge) {
		// 413 whatever httpStatus says, in body and header: as on every endpoint.
		return nil, &httpx.Error{Status: http.StatusRequestEntityTooLarge, Reason: "invalid_request: " + readErr.Error(),
			Body: errorBody{Status: http.StatusRequestEntityTooLarge, ErrorCode: CodeInvalidRequest, Message: readErr.Error()}}
	}
	if readErr != nil {
		return nil, invalid(sc, "body: could not be read")
	}
	doc, err := schema.Parse(body)
	if err != nil {
		return nil, invalid(sc, "body: "+err.Error())
	}
	if err := h.Schemas.Validate(op.Request, doc.Value); err != nil {
		return nil, invalid(sc, err.Error())
	}
	if err := doc.Into(dst); err != nil { // the one decode serves the schema and dst
		return nil, invalid(sc, "body: "+err.Error())
	}
	fields, isObject := doc.Value.(map[string]any)
	if !isObject { // the request schemas require an object; never panic on one that would not
		return nil, invalid(sc, "body: must be a JSON object")
	}
	if name, _ := fields["channelName"].(string); name != ch.Name {
		return nil, invalid(sc, fmt.Sprintf("channelName: %q is not the name of channel %s (matched case-sensitively)", name, ch.ChannelID))
	}
	virtualID, _ := fields["virtualId"].(string)
	offer, _ := fields["offerId"].(string)
	ext, _ := fields["extTransactionId"].(string)
	return &frontdoor.Call{Op: op, Channel: ch, Scenario: sc, VirtualID: virtualID,
		OfferID: offer, IdemKey: ext}, nil
}

// isJSON: is the Content-Type application/json? The plain value, the
// one clients send, needs no parse (ParseMediaType allocates).
func isJSON(ct string) bool {
	if ct == echo.MIMEApplicationJSON {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == echo.MIMEApplicationJSON
}

// bodyScenario is the scenario governing the channel a request body names
// in channelName, else the active one: the switches of a refusal that
// comes before the channel is known (CPN-3 with switches.coupons.httpStatus).
func (h *handlers) bodyScenario(body []byte) *scenario.Scenario {
	var named struct {
		ChannelName string `json:"channelName"`
	}
	if json.Unmarshal(body, &named) == nil && named.ChannelName != "" {
		if _, sc, ok := h.Channels.ByChannelName(named.ChannelName); ok {
			return sc
		}
	}
	return h.Channels.Active()
}

// checkAppKey checks `Authorization: ServiceAppKey <APP_KEY>:<SEC_KEY>`:
// the secKey it proved, or why it refused.
func checkAppKey(header string, ch model.Channel) (secKey, refused string) {
	if header == "" {
		return "", "Authorization header is missing"
	}
	scheme, cred, _ := strings.Cut(header, " ")
	if scheme != "ServiceAppKey" {
		return "", fmt.Sprintf("Authorization scheme %q is not ServiceAppKey", scheme)
	}
	app, sec, ok := strings.Cut(cred, ":")
	if !ok {
		return "", "Authorization credentials are not <APP_KEY>:<SEC_KEY>"
	}
	if ch.AppKey == "" || !ch.HasSecKey() {
		return "", "channel " + ch.ChannelID + " has no appKey and secKey registered"
	}
	appOK := subtle.ConstantTimeCompare([]byte(app), []byte(ch.AppKey)) == 1
	secOK := ch.SecKeyMatches(sec)
	if !appOK || !secOK {
		return "", "APP_KEY or SEC_KEY does not match channel " + ch.ChannelID
	}
	return sec, ""
}

// faults is the coupon host's dialect of injected faults (a
// frontdoor.Dialect): a failure before any effect in the host's shape
// (generic actions through inject.Generic), or an injected delay waited
// out; the commit kinds are left to fetchCouponCode, which commits first.
func (h *handlers) faults(c echo.Context, call *frontdoor.Call, act fault.Action) (bool, error) {
	if act.Commits() {
		return false, nil
	}
	err := h.applyFault(c, call, act)
	return err != nil, err
}

func (h *handlers) applyFault(c echo.Context, call *frontdoor.Call, act fault.Action) error {
	if stop, err := inject.Generic(c, act); stop {
		return err
	}
	code := ""
	switch act.Kind {
	case fault.InternalError:
		code = CodeInternal
	case fault.SignatureMismatch:
		code = CodeUnauthorized
	case fault.NotEligible:
		code = CodeNonEligible
	case fault.CouponError:
		if code = act.ErrorCode; codeStatus[code] == 0 {
			code = CodeInternal
		}
	}
	if code != "" {
		// The body says what the real outcome would; the reason header
		// says the answer was injected.
		f := failure(call.Scenario, code, injectedMessage(call, act, code))
		f.Reason = strings.TrimSpace("injected fault: " + act.Kind + " " + act.ErrorCode)
		return f
	}
	switch act.Kind {
	case fault.MalformedBody:
		return &httpx.Error{Status: http.StatusOK, Body: []byte(`{"status":20`), Reason: "injected fault: malformed-body"}
	}
	return nil
}

// noOfferMessage words an injected error of a call that names no offer.
var noOfferMessage = map[string]string{
	CodeExhausted: "no coupons left", coupons.CodeLimitReached: "purchase_limit reached",
	CodeNonEligible: "the user is not eligible", coupons.CodeInvalidOffer: "no such offer",
}

// injectedMessage is an injected coupon error's message: the rule's own,
// else the words the real outcome uses for that code (coupons.Claim's,
// the opener's), so the app shows what it would show for the real one.
func injectedMessage(call *frontdoor.Call, act fault.Action, code string) string {
	if act.Message != "" {
		return act.Message
	}
	offer, ext := call.OfferID, call.IdemKey
	if offer == "" { // a call about no one offer (the catalogue)
		if m, ok := noOfferMessage[code]; ok {
			return m
		}
	}
	switch code {
	case CodeExhausted:
		return fmt.Sprintf("offer %s has no coupons left", offer)
	case coupons.CodeLimitReached:
		return fmt.Sprintf("virtualId %q reached the purchase_limit of offer %s", call.VirtualID, offer)
	case CodeNonEligible:
		return fmt.Sprintf("offer %s's targeting excludes virtualId %q", offer, call.VirtualID)
	case coupons.CodeInvalidOffer:
		// An offer the channel has is answered as the real refusal of an
		// inactive one words it: "not an offer of the channel" would be
		// false of the channel's state.
		if _, ok := call.Scenario.Offers.Offer(call.Channel.Name, offer); ok {
			return fmt.Sprintf("offer %s is inactive", offer)
		}
		return fmt.Sprintf("offer %q is not an offer of channel %s", offer, call.Channel.Name)
	case CodeDuplicate:
		return fmt.Sprintf("extTransactionId %q was already processed", ext)
	case CodeUnauthorized:
		return "APP_KEY or SEC_KEY does not match channel " + call.Channel.ChannelID
	case CodeInvalidRequest:
		return "the request is invalid"
	}
	return "internal error"
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

// appendCouponAnswer appends what ok(c, render(sc, cp)) wrote, newline
// included, without reflection; TestAppendCouponAnswer compares them.
func appendCouponAnswer(b []byte, sc *scenario.Scenario, cp model.Coupon) []byte {
	b = append(b, `{"status":200,"message":"`+Fetched+`","data":{"id":`...)
	b = jsonw.AppendString(b, cp.OfferID)
	b = append(b, `,"coupon_code":`...)
	b = jsonw.AppendString(b, cp.Code)
	b = append(b, `,"coupon_validity":"`...)
	b = cp.ValidUntil.In(sc.Location).AppendFormat(b, time.RFC3339) // digits and separators only
	b = append(b, `","extTransactionId":`...)
	b = jsonw.AppendString(b, cp.ExtTransactionID)
	b = append(b, `,"purchase_time":"`...)
	b = cp.PurchasedAt.In(sc.Location).AppendFormat(b, time.RFC3339)
	b = append(b, `","url":`...)
	b = jsonw.AppendString(b, cp.URL)
	if sc.Switches.Coupons.OrderID && cp.OrderID != "" { // omitempty
		b = append(b, `,"orderId":`...)
		b = jsonw.AppendString(b, cp.OrderID)
	}
	return append(b, "}}\n"...)
}

type claimRequest struct {
	OfferID          string          `json:"offerId"`
	VirtualID        string          `json:"virtualId"`
	ExtTransactionID string          `json:"extTransactionId"`
	CoinsUsed        json.RawMessage `json:"coinsUsed"`
}

// fetch is fetchCouponCode (CPN-1 to CPN-8).
func (h *handlers) fetch(c echo.Context, cl *frontdoor.Call, req *claimRequest) error {
	sc := cl.Scenario
	coins, err := parseCoins(req.CoinsUsed, sc.Switches.Coupons.CoinsAsNumber == scenario.Accept)
	if err != nil {
		return invalid(sc, "coinsUsed: "+err.Error())
	}
	res, err := h.Coupons.Claim(coupons.ClaimRequest{
		Scenario: sc, Channel: cl.Channel.Name, OfferID: req.OfferID, VirtualID: req.VirtualID,
		ExtTransactionID: req.ExtTransactionID, Coins: coins, BaseURL: httpx.BaseURL(c, h.PublicURL),
	})
	if err != nil {
		return failure(sc, CodeInternal, "coupon store: "+err.Error())
	}
	if res.Outcome != coupons.Delivered && res.Outcome != coupons.Duplicate {
		// A refused claim commits nothing: a commit kind has nothing to
		// withhold, so it is not shown and the door hands the rule back.
		return failure(sc, res.Refused.Code, res.Refused.Msg)
	}
	if cl.Fired && cl.Fault.Commits() {
		// CPN-4: the claim is committed; withhold the answer.
		httpx.NoteFault(c, cl.Fault.Kind)
		if cl.Fault.Kind == fault.CommitThenDrop {
			return httpx.Drop(c, "injected fault: commit-then-drop")
		}
		if err := httpx.Wait(c.Request().Context(), cl.Fault.Delay.D()); err != nil {
			return err // the client gave up: nothing to answer
		}
	}
	if httpx.Indented(c) {
		return ok(c, render(sc, res.Coupon))
	}
	return httpx.WriteJSON(c, func(b []byte) []byte { return appendCouponAnswer(b, sc, res.Coupon) })
}

// parseCoins reads coinsUsed: a string of digits (the contract), or a
// JSON number when the switch accepts it. The schema already checked its form.
func parseCoins(raw json.RawMessage, acceptNumber bool) (int, error) {
	if n, ok := quotedDigits(raw); ok { // the contract's form, read without reflection
		return n, nil
	}
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

// quotedDigits reads a JSON string of 1 to 18 ASCII digits (no overflow),
// as json.Unmarshal and strconv.Atoi would; ok is false for anything else.
func quotedDigits(raw []byte) (n int, ok bool) {
	if len(raw) < 3 || len(raw) > 20 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return 0, false
	}
	for _, c := range raw[1 : len(raw)-1] {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

type userCouponsRequest struct {
	OfferID   string `json:"offerId"`
	VirtualID string `json:"virtualId"`
}

// userCoupons is getUserCoupons (CPN-9): the reconciliation path.
func (h *handlers) userCoupons(c echo.Context, cl *frontdoor.Call, req *userCouponsRequest) error {
	sc := cl.Scenario
	list, err := h.Coupons.UserCoupons(cl.Channel.Name, req.OfferID, req.VirtualID)
	if err != nil {
		return failure(sc, CodeInternal, "coupon store: "+err.Error())
	}
	type entry struct {
		couponData
		State         string `json:"state"`
		InvalidatedAt string `json:"invalidatedAt,omitempty"`
		Reason        string `json:"reason,omitempty"`
	}
	out := make([]entry, 0, len(list))
	for _, cp := range list {
		e := entry{couponData: render(sc, cp.Coupon), State: cp.State}
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

type catalogueRequest struct {
	VirtualID string `json:"virtualId"`
}

// catalogue is getCatalogue (CPN-10): the channel's open offers, only
// those whose targeting admits virtualId when one is given.
func (h *handlers) catalogue(c echo.Context, cl *frontdoor.Call, req *catalogueRequest) error {
	sc := cl.Scenario
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
	listed, err := h.Coupons.Catalogue(sc, cl.Channel.Name, req.VirtualID)
	if err != nil {
		return failure(sc, CodeInternal, "coupon store: "+err.Error())
	}
	out := make([]item, 0, len(listed))
	for _, o := range listed {
		it := item{ID: o.ID, Title: o.Title, Description: o.Description, Coins: o.Coins,
			Stock: o.Left, PurchaseLimit: o.PurchaseLimit}
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
	ch, sc, known := h.Channels.ByChannelName(chName)
	if known { // filed under its channel, as the journal and report filters read it
		httpx.NoteCaller(c, ch.Name, ch.ChannelID, "")
	}
	if h.SharedBox {
		if err := h.delivered(chName, offerID, c.QueryParams()); err != nil {
			return err
		}
	}
	target, found, err := h.Coupons.Follow(sc, chName, offerID, c.Request().URL.RawQuery)
	if !found {
		return &httpx.Error{Status: http.StatusNotFound, Body: map[string]string{"message": "no such offer"},
			Reason: fmt.Sprintf("coupon url for unknown offer %s/%s", chName, offerID)}
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusFound, target)
}
