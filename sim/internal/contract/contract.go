// Package contract is the simulator's one table of the service's surface:
// which operation lives on which host, at which path, under which auth
// scheme, and which JSON Schemas describe it. Routing, validation, the
// harness and the journal all read this table, so they agree.
package contract

// Host is one of the service's three public hosts.
type Host string

const (
	Rewards  Host = "rewards"
	Bank     Host = "bank"
	Hotdeals Host = "hotdeals"
)

// Auth is how an operation authenticates its caller.
type Auth string

const (
	SignedEnvelope Auth = "envelope"
	BearerRef      Auth = "bearer-reference"
	BearerUser     Auth = "bearer-user"
	APIKey         Auth = "api-key"
	// SDKClient is the SDK helper's authentication: none of its own; the
	// channel is the one the SDK was initialised with (channelName).
	SDKClient Auth = "sdk-client"
)

// Dialect is how an operation says no: the shape its refusals and
// injected faults are written in.
type Dialect string

const (
	// BareFailure is the signed family's {STATUS, ERRORSTRING} body.
	BareFailure Dialect = "bare-failure"
	// CardsJSON is the rewards host's plain JSON {status, message, ...}.
	CardsJSON Dialect = "cards-json"
	// SDK is the SDK issuance answer {status, message, banner, ...}.
	SDK Dialect = "sdk"
	// Coupon is the coupon host's {status, errorCode, message}.
	Coupon Dialect = "coupon"
	// NotAvailable is the 404 of an endpoint the real service lacks (NA-1).
	NotAvailable Dialect = "not-available"
)

// Op describes one operation.
type Op struct {
	Name   string
	Host   Host
	Method string
	Path   string
	Auth   Auth
	// Dialect is the shape of the operation's refusals and injected faults.
	Dialect Dialect
	// RequestBDATA and ResponseBDATA name the schemas of the decoded
	// payloads of an envelope operation; Request and Response name the
	// schemas of the wire bodies. Empty means none applies.
	Request, RequestBDATA, Response, ResponseBDATA string
}

// Operation names.
const (
	OpReferenceToken = "getSecuredReferenceToken"
	OpAuthToken      = "GetAuthToken"
	OpSession        = "GenerateSessionInfoV2"
)

// Scratch-card operations (issue 3).
const (
	OpGetReward       = "GetReward"
	OpFetchRewardInfo = "FetchRewardInfo"
	OpListCards       = "GetAllScratchCardsByUserId"
	OpBankCard        = "GetScratchCardForBank"
)

// SDK client issuance (issue 7, SDK-1): the simulator's emulation of the
// mobile SDK helper (Android getScratchCardDetails, iOS
// sendRewardCardRequest) as plain JSON calls on the bank host. Both names
// take the same parameters and answer 2.7.
const (
	OpSDKIssueAndroid = "getScratchCardDetails"
	OpSDKIssueIOS     = "sendRewardCardRequest"
)

// Coupon host operations and the unavailable bank endpoints (issue 4).
const (
	OpCatalogue     = "getCatalogue"
	OpFetchCoupon   = "fetchCouponCode"
	OpUserCoupons   = "getUserCoupons"
	OpRegisterEvent = "RegisterEvent"
	OpExitEvent     = "ExitEvent"
)

// CouponRedirectPrefix is the path under which coupon URLs are served
// (CPN-8): the coupons service builds them, the picture tells them apart.
const CouponRedirectPrefix = "/hotdeals/r/"

// Ops is the catalogue of built operations: the one table the router,
// validation, the journal and the harness read. The router refuses to
// start if an operation here has no handler, or a handler no operation.
var Ops = []Op{
	{
		Name: OpReferenceToken, Host: Rewards, Method: "POST", Path: "/api/getSecuredReferenceToken", Dialect: BareFailure, Auth: SignedEnvelope,
		Request: "envelope.request", RequestBDATA: "getSecuredReferenceToken.request",
		Response: "signed-or-failure", ResponseBDATA: "getSecuredReferenceToken.response",
	},
	{
		Name: OpAuthToken, Host: Rewards, Method: "POST", Path: "/api/GetAuthToken", Dialect: BareFailure, Auth: SignedEnvelope,
		Request: "envelope.request", RequestBDATA: "GetAuthToken.request",
		Response: "signed-or-failure", ResponseBDATA: "GetAuthToken.response",
	},
	{
		Name: OpSession, Host: Bank, Method: "POST", Path: "/api/GenerateSessionInfoV2", Dialect: BareFailure, Auth: SignedEnvelope,
		Request: "envelope.request", RequestBDATA: "GenerateSessionInfoV2.request",
		Response: "signed-or-failure", ResponseBDATA: "GenerateSessionInfoV2.response",
	},
	// getCatalogue and getUserCoupons: path, method and shapes are the
	// simulator's reading (CPN-9, CPN-10); the contract shows none.
	{
		Name: OpCatalogue, Host: Hotdeals, Method: "POST", Path: "/api/getCatalogue", Dialect: Coupon, Auth: APIKey,
		Request: "getCatalogue.request", Response: "getCatalogue.response",
	},
	{
		Name: OpFetchCoupon, Host: Hotdeals, Method: "POST", Path: "/api/fetchCouponCode", Dialect: Coupon, Auth: APIKey,
		Request: "fetchCouponCode.request", Response: "fetchCouponCode.response",
	},
	{
		Name: OpUserCoupons, Host: Hotdeals, Method: "POST", Path: "/api/getUserCoupons", Dialect: Coupon, Auth: APIKey,
		Request: "getUserCoupons.request", Response: "getUserCoupons.response",
	},
	// RegisterEvent and ExitEvent do not exist in the real service (NA-1):
	// every call answers HTTP 404 not-available.
	{
		Name: OpRegisterEvent, Host: Bank, Method: "POST", Path: "/api/RegisterEvent", Dialect: NotAvailable, Auth: SignedEnvelope,
		Request: "envelope.request", Response: "not-available",
	},
	{
		Name: OpExitEvent, Host: Bank, Method: "POST", Path: "/api/ExitEvent", Dialect: NotAvailable, Auth: SignedEnvelope,
		Request: "envelope.request", Response: "not-available",
	},
	{
		Name: OpGetReward, Host: Rewards, Method: "POST", Path: "/api/GetReward", Dialect: CardsJSON, Auth: BearerRef,
		Request: "GetReward.request", Response: "GetReward.response",
	},
	{
		Name: OpFetchRewardInfo, Host: Rewards, Method: "POST", Path: "/api/FetchRewardInfo", Dialect: BareFailure, Auth: BearerUser,
		Request: "envelope.request", RequestBDATA: "FetchRewardInfo.request",
		Response: "FetchRewardInfo.answer", ResponseBDATA: "FetchRewardInfo.response",
	},
	{
		Name: OpListCards, Host: Rewards, Method: "GET", Path: "/api/GetAllScratchCardsByUserId", Dialect: CardsJSON, Auth: BearerUser,
		Response: "GetAllScratchCardsByUserId.response",
	},
	{
		Name: OpBankCard, Host: Bank, Method: "POST", Path: "/api/GetScratchCardForBank", Dialect: BareFailure, Auth: SignedEnvelope,
		Request: "envelope.request", RequestBDATA: "GetScratchCardForBank.request",
		Response: "GetScratchCardForBank.answer", ResponseBDATA: "GetScratchCardForBank.response",
	},
	{
		Name: OpSDKIssueAndroid, Host: Bank, Method: "POST", Path: "/sdk/" + OpSDKIssueAndroid, Dialect: SDK, Auth: SDKClient,
		Request: "sdk-issue.request", Response: "sdk-issue.response",
	},
	{
		Name: OpSDKIssueIOS, Host: Bank, Method: "POST", Path: "/sdk/" + OpSDKIssueIOS, Dialect: SDK, Auth: SDKClient,
		Request: "sdk-issue.request", Response: "sdk-issue.response",
	},
}

// ByPath finds the operation served at method and path, if any.
func ByPath(method, path string) (Op, bool) {
	for _, op := range Ops {
		if op.Method == method && op.Path == path {
			return op, true
		}
	}
	return Op{}, false
}

// ByName finds an operation by name.
func ByName(name string) (Op, bool) {
	for _, op := range Ops {
		if op.Name == name {
			return op, true
		}
	}
	return Op{}, false
}
