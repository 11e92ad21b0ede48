package calibrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/rewardsim/rewardsim/sim/publisher"
)

// The read-only probes: none issues a card, claims a coupon or burns
// stock (tokens are issued; a GetReward for a trigger no campaign
// answers gets the not-eligible answer).

// noTrigger is a triggerEventType no campaign answers.
const noTrigger = "CALIBRATENOMATCH"

// refToken is the channel's reference token, fetched once.
func (r *run) refTokenCall() (string, *Exchange, error) {
	if r.refToken != "" || r.refErr != nil {
		return r.refToken, r.refEx, r.refErr
	}
	tok, e, err := r.fetchRefToken()
	r.refToken, r.refEx, r.refErr = tok, e, err
	return tok, e, err
}

// fetchRefToken calls getSecuredReferenceToken.
func (r *run) fetchRefToken() (string, *Exchange, error) {
	return r.tokenCall("getSecuredReferenceToken", map[string]string{"bName": r.t.Channel})
}

// tokenCall calls a signed token operation of the rewards host and reads
// the token out of its answer, remembered for masking.
func (r *run) tokenCall(op string, payload map[string]string) (string, *Exchange, error) {
	e, err := r.signed(op, r.t.RewardsURL+"/api/"+op, payload, nil)
	if err == nil {
		err = r.send(e)
	}
	if err != nil {
		return "", e, err
	}
	_, tok, ok := tokenAnswer(e)
	if !ok || tok == "" {
		return "", e, ambiguous("%s gave no token: %s", op, describe(e))
	}
	r.remember(tok)
	return tok, e, nil
}

// userTokenCall is the user token of virtualID, fetched once.
func (r *run) userTokenCall(virtualID string) (string, *Exchange, error) {
	if u, ok := r.userTokens[virtualID]; ok {
		return u.token, u.ex, u.err
	}
	tok, e, err := r.fetchUserToken(virtualID)
	if !errors.Is(err, errBudget) && !errors.Is(err, errStopped) {
		r.userTokens[virtualID] = userToken{tok, e, err}
	}
	return tok, e, err
}

// fetchUserToken calls GetAuthToken for virtualID.
func (r *run) fetchUserToken(virtualID string) (string, *Exchange, error) {
	return r.tokenCall("GetAuthToken", map[string]string{"virtualId": virtualID, "channelName": r.t.Channel})
}

func probeTokens(r *run) error {
	_, e, err := r.refTokenCall()
	if err != nil {
		return err
	}
	format, ttl, err := readTokenTTL(e, r.t.Location)
	if format != "" {
		r.set("tokens", "tokens.expireDateFormat", format, e)
	}
	if err != nil {
		r.unsure("tokens", "tokens.referenceTTL", err)
	} else {
		r.set("tokens", "tokens.referenceTTL", ttl, e)
	}
	_, ue, err := r.userTokenCall(r.fetchUser())
	if err != nil {
		return err
	}
	if _, ttl, err := readTokenTTL(ue, r.t.Location); err != nil {
		r.unsure("tokens", "tokens.userTTL", err)
	} else {
		r.set("tokens", "tokens.userTTL", ttl, ue)
	}
	return nil
}

// decideBy sets name from reader's reading of e, or says the answer is ambiguous.
func (r *run) decideBy(probe, name string, e *Exchange, reader func(*Exchange) (string, bool)) error {
	v, ok := reader(e)
	if !ok {
		return ambiguous("%s %s", e.Op, describe(e))
	}
	r.set(probe, name, v, e)
	return nil
}

func probeBadSign(r *run) error {
	e, err := r.spoiledRefTokenCall("SIGN made over other BDATA", func(env *publisher.Envelope) {
		other, _ := publisher.Seal(r.t.Key, r.t.ChannelID, map[string]string{"bName": r.t.Channel + "-other"})
		env.SIGN = other.SIGN
	})
	if err != nil {
		return err
	}
	return r.decideBy("bad-sign", "switches.failureHttpStatus", e, readFailureStatus)
}

func probeUnknownChannel(r *run) error {
	e, err := r.spoiledRefTokenCall("CHANNELID the service does not know",
		func(env *publisher.Envelope) { env.CHANNELID = "CALUNKNOWN" + r.o.RunID })
	if err != nil {
		return err
	}
	return r.decideBy("unknown-channel", "switches.unknownChannel", e, readUnknownChannel)
}

// spoiledRefTokenCall sends getSecuredReferenceToken in an envelope that
// spoil has made wrong (note says how): the refusal-reading probes' call.
func (r *run) spoiledRefTokenCall(note string, spoil func(*publisher.Envelope)) (*Exchange, error) {
	e, err := r.signed("getSecuredReferenceToken", r.t.RewardsURL+"/api/getSecuredReferenceToken",
		map[string]string{"bName": r.t.Channel}, spoil)
	if err != nil {
		return nil, err
	}
	e.Note = note
	return e, r.send(e)
}

// dateAndTime is now as GetReward's dateandtime (DDMMYYYYHHMMSS).
func (r *run) dateAndTime() string { return r.o.Now().In(r.t.Location).Format("02012006150405") }

// getReward posts a GetReward body (changed by alter) with the reference token.
func (r *run) getReward(bearer, trigger, note string, alter func(map[string]any)) (*Exchange, error) {
	body := map[string]any{"channelName": r.t.Channel, "virtualId": r.user(), "triggerEventType": trigger,
		"extTransactionId": r.txn(), "amount": 100, "dateandtime": r.dateAndTime()}
	if alter != nil {
		alter(body)
	}
	raw, _ := json.Marshal(body)
	h := http.Header{"Authorization": {"Bearer " + bearer}}
	e := &Exchange{Op: "GetReward", Method: http.MethodPost, URL: r.t.RewardsURL + "/api/GetReward", Header: h, Body: raw, Note: note}
	return e, r.send(e)
}

// refusalVariant is one GetReward that a switch refuses or takes.
type refusalVariant struct {
	name          string
	note          string
	alter         func(map[string]any)
	taken, refuse string
	// alike is a reading that answers as taken does, and alikeWhy why.
	alike, alikeWhy string
}

var refusalVariants = []refusalVariant{
	{name: "switches.cards.amountRequired", note: "amount left out", alter: func(b map[string]any) { delete(b, "amount") }, taken: "false", refuse: "true"},
	{name: "switches.cards.dateandtime", note: "dateandtime not DDMMYYYYHHMMSS", alter: func(b map[string]any) { b["dateandtime"] = "2026-01-15 11:00" },
		taken: "accept", refuse: "reject", alike: "now",
		alikeWhy: "now keeps the service's clock and accept the date sent, and no answer (GetReward's, the listing's, a reveal's) shows the date a card keeps; its createdDateTime is when it was issued either way"},
	{name: "switches.cards.nestedAdditionalParams", note: "additionalParams an object", alter: func(b map[string]any) { b["additionalParams"] = map[string]string{"city": "Pune"} },
		taken: "accept", refuse: "reject"},
	{name: "switches.cards.channelMismatch", note: "channelName other than the token's", alter: func(b map[string]any) { b["channelName"] = "CALOTHERCHANNEL" },
		taken: "use-token", refuse: "refuse"},
}

func probeGetRewardRefusals(r *run) error {
	const probe = "getreward-refusals"
	tok, _, err := r.refTokenCall()
	if err != nil {
		return err
	}
	base, err := r.getReward(tok, noTrigger, "a trigger no campaign answers", nil)
	if err != nil {
		return err
	}
	bad, err := r.getReward(tok, noTrigger, "virtualId left out", func(b map[string]any) { delete(b, "virtualId") })
	if err != nil {
		return err
	}
	if plainOutcome(bad) == refused {
		r.set(probe, "switches.cards.invalidRequestStatus", strconv.Itoa(bad.Status), bad)
	} else {
		r.unsure(probe, "switches.cards.invalidRequestStatus", ambiguous("a GetReward without virtualId was not refused: %s", describe(bad)))
	}
	if plainOutcome(base) != taken {
		return ambiguous("GetReward for a trigger no campaign answers was not the not-eligible answer {status false, message \"failure\"}, so no variant can be read against it: %s", describe(base))
	}
	for _, v := range refusalVariants {
		e, err := r.getReward(tok, noTrigger, v.note, v.alter)
		if err != nil {
			return err
		}
		switch o := plainOutcome(e); {
		case o == taken && v.alike != "":
			// Told from the refusing reading, not from its twin.
			f := r.unsure(probe, v.name, needs{CauseUnobservable, fmt.Sprintf("not observable from a publisher's side: it is %s or %s, not %s (%s is taken), "+
				"and no answer tells them apart: %s", v.taken, v.alike, v.refuse, v.note, v.alikeWhy)})
			f.Candidates = []string{v.taken, v.alike}
			f.Evidence = []string{base.Evidence(r.mask), e.Evidence(r.mask)}
		case o == taken:
			r.set(probe, v.name, v.taken, base, e)
		case o == refused:
			r.set(probe, v.name, v.refuse, base, e)
		default:
			r.unsure(probe, v.name, ambiguous("%s", describe(e)))
		}
	}
	return nil
}

// fetchUser is the made-up user of the tokens, fetch-sign and listing
// probes: one user token serves them all.
func (r *run) fetchUser() string {
	if r.readUser == "" {
		r.readUser = r.user()
	}
	return r.readUser
}

func probeFetchSign(r *run) error {
	vid := r.fetchUser()
	tok, _, err := r.userTokenCall(vid)
	if err != nil {
		return err
	}
	e, err := r.signed("FetchRewardInfo", r.t.RewardsURL+"/api/FetchRewardInfo",
		map[string]string{"rewardId": "987654321987", "virtualId": vid, "channelName": r.t.Channel},
		func(env *publisher.Envelope) { env.SIGN = "" })
	if err != nil {
		return err
	}
	e.Header.Set("Authorization", "Bearer "+tok)
	e.Note = "no SIGN; a card that does not exist"
	if err := r.send(e); err != nil {
		return err
	}
	s, ok := bareFailure(e.Resp)
	switch {
	case ok && s == "Signature Mismatch!":
		r.set("fetch-sign", "switches.cards.fetchSignRequired", "true", e)
	case ok && len(s) > 16 && s[:16] == "Invalid Request!":
		r.set("fetch-sign", "switches.cards.fetchSignRequired", "false", e)
	default:
		return ambiguous("%s", describe(e))
	}
	return nil
}

// list calls the listing with query.
func (r *run) list(tok, query, note string) (*Exchange, error) {
	u := r.t.RewardsURL + "/api/GetAllScratchCardsByUserId"
	if query != "" {
		u += "?" + query
	}
	e := &Exchange{Op: "GetAllScratchCardsByUserId", Method: http.MethodGet, URL: u, Header: http.Header{"Authorization": {"Bearer " + tok}}, Note: note}
	return e, r.send(e)
}

func probeListing(r *run) error {
	const probe = "listing"
	tok, _, err := r.userTokenCall(r.fetchUser())
	if err != nil {
		return err
	}
	plain, err := r.list(tok, "", "no page, no limit")
	if err != nil {
		return err
	}
	if err := r.decideBy(probe, "switches.cards.listDefaultLimit", plain, readListLimit); err != nil {
		return err
	}
	def, _ := readListLimit(plain)
	zero, err := r.list(tok, "limit=0", "")
	if err != nil {
		return err
	}
	switch o := plainOutcome(zero); {
	case o == refused:
		r.set(probe, "switches.cards.listBadValues", "reject", zero)
	case o == taken && fmt.Sprint(limitOf(zero)) == def:
		r.set(probe, "switches.cards.listBadValues", "clamp", zero)
	default:
		r.unsure(probe, "switches.cards.listBadValues", ambiguous("%s", describe(zero)))
	}
	return r.listMax(tok, def)
}

func limitOf(e *Exchange) int { l, _, _, _ := listAnswer(e); return l }

// huge is a limit over any maximum a service would set.
const huge = 1_000_000

// listMax reads the listing's maximum limit: the limit a huge one was
// clamped to, or the maximum a refusal names (checked), or a bisection.
func (r *run) listMax(tok, def string) error {
	const probe, name = "listing", "switches.cards.listMaxLimit"
	big, err := r.list(tok, "limit="+strconv.Itoa(huge), "")
	if err != nil {
		return err
	}
	if plainOutcome(big) == taken {
		r.set(probe, name, strconv.Itoa(limitOf(big)), big)
		return nil
	}
	if plainOutcome(big) != refused {
		return ambiguous("%s", describe(big))
	}
	_, _, msg, _ := listAnswer(big)
	if n, ok := maximumIn(msg); ok && n < huge {
		e, err := r.list(tok, "limit="+strconv.Itoa(n), "the maximum the refusal named")
		if err != nil {
			return err
		}
		if plainOutcome(e) == taken && limitOf(e) == n {
			r.set(probe, name, strconv.Itoa(n), big, e)
			return nil
		}
	}
	lo, _ := strconv.Atoi(def) // taken: the default is within the maximum
	hi := huge                 // refused
	var last *Exchange
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		e, err := r.list(tok, "limit="+strconv.Itoa(mid), "bisecting the maximum")
		if err != nil {
			return err
		}
		switch plainOutcome(e) {
		case taken:
			lo, last = mid, e
		case refused:
			hi = mid
		default:
			return ambiguous("%s", describe(e))
		}
	}
	r.set(probe, name, strconv.Itoa(lo), big, last)
	return nil
}

// bankRequest is a GetScratchCardForBank payload for campaign.
func (r *run) bankRequest(campaign, txn string) publisher.BankCardRequest {
	return publisher.BankCardRequest{VirtualID: r.user(), TransDateAndTime: r.o.Now().In(r.t.Location).Format("2006-01-02 15:04:05"),
		Amount: "100", MCC: "5411", ExtTransactionID: txn, CampaignID: campaign}
}

// bankCard calls GetScratchCardForBank for campaign, a fresh extTransactionId.
func (r *run) bankCard(campaign, note string) (*Exchange, error) {
	e, err := r.signed("GetScratchCardForBank", r.t.BankURL+"/api/GetScratchCardForBank", r.bankRequest(campaign, r.txn()), nil)
	if err != nil {
		return nil, err
	}
	e.Note = note
	return e, r.send(e)
}

func probeBankNotEligible(r *run) error {
	e, err := r.bankCard("CALNOSUCHCAMPAIGN", "a campaignId that does not exist")
	if err != nil {
		return err
	}
	return r.decideBy("bank-not-eligible", "switches.cards.bankNotEligible", e, readBankNotEligible)
}

// sdkEmptySession calls getScratchCardDetails with an empty sessionId
// for a trigger no campaign answers.
func (r *run) sdkEmptySession() (*Exchange, error) {
	body := map[string]any{"channelName": r.t.Channel, "triggerEventType": noTrigger, "amount": 100, "extTransactionId": r.txn(),
		"dateandtime": r.dateAndTime(), "virtualId": r.user(), "sessionId": ""}
	raw, _ := json.Marshal(body)
	e := &Exchange{Op: "getScratchCardDetails", Method: http.MethodPost, URL: r.t.BankURL + "/sdk/getScratchCardDetails", Body: raw,
		Note: "empty sessionId; a trigger no campaign answers"}
	return e, r.send(e)
}

func probeSDKEmptySession(r *run) error {
	e, err := r.sdkEmptySession()
	if err != nil {
		return err
	}
	switch plainOutcome(e) {
	case taken:
		r.set("sdk-empty-session", "switches.sdk.emptySessionId", "accept", e)
	case refused:
		r.set("sdk-empty-session", "switches.sdk.emptySessionId", "refuse", e)
	default:
		return ambiguous("%s", describe(e))
	}
	return nil
}

// apiKey posts body to a coupon-host path with the channel's API key.
func (r *run) apiKey(op string, body any, note string) (*Exchange, error) {
	raw, _ := json.Marshal(body)
	h := http.Header{"X-Channelid": {r.t.ChannelID}, "Authorization": {"ServiceAppKey " + r.t.AppKey + ":" + r.t.SecKey}}
	e := &Exchange{Op: op, Method: http.MethodPost, URL: r.t.HotdealsURL + "/api/" + url.PathEscape(op), Header: h, Body: raw, Note: note}
	return e, r.send(e)
}

func probeCouponErrors(r *run) error {
	const probe = "coupon-errors"
	e, err := r.apiKey("fetchCouponCode", map[string]any{"offerId": "CAL-NO-SUCH-OFFER", "virtualId": r.user(), "channelName": r.t.Channel,
		"extTransactionId": r.txn(), "coinsUsed": 100}, "an offer that does not exist; coinsUsed a JSON number")
	if err != nil {
		return err
	}
	if err := r.decideBy(probe, "switches.coupons.httpStatus", e, readCouponHTTPStatus); err != nil {
		return err
	}
	switch status, code, _, _ := couponBody(e); {
	case status == http.StatusBadRequest && code == "INVALID_REQUEST":
		r.set(probe, "switches.coupons.coinsAsNumber", "refuse", e)
	case status == http.StatusNotFound:
		r.set(probe, "switches.coupons.coinsAsNumber", "accept", e)
	default:
		return ambiguous("%s", describe(e))
	}
	return nil
}
