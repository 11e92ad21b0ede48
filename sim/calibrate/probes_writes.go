package calibrate

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// The write probes: each issues a card, claims a coupon or burns stock,
// so each runs only with Options.AllowWrites.

func probeCardReveal(r *run) error {
	const probe = "card-reveal"
	ref, _, err := r.refTokenCall()
	if err != nil {
		return err
	}
	issue, err := r.getReward(ref, r.t.Trigger, "--trigger, to earn a card", nil)
	if err != nil {
		return err
	}
	var ans struct {
		Status  bool `json:"status"`
		Rewards []struct {
			RewardID json.Number `json:"rewardId"`
		} `json:"rewards"`
	}
	if json.Unmarshal(issue.Resp, &ans) != nil || !ans.Status || len(ans.Rewards) == 0 {
		return ambiguous("GetReward for trigger %q issued no card (is --trigger a trigger of the channel's campaigns?): %s", r.t.Trigger, describe(issue))
	}
	var body map[string]any
	_ = json.Unmarshal(issue.Body, &body)
	vid, _ := body["virtualId"].(string)
	tok, _, err := r.userTokenCall(vid)
	if err != nil {
		return err
	}
	reveal := func(note string) (*Exchange, error) {
		e, err := r.signed("FetchRewardInfo", r.t.RewardsURL+"/api/FetchRewardInfo",
			map[string]string{"rewardId": ans.Rewards[0].RewardID.String(), "virtualId": vid, "channelName": r.t.Channel}, nil)
		if err != nil {
			return nil, err
		}
		e.Header.Set("Authorization", "Bearer "+tok)
		e.Note = note
		return e, r.send(e)
	}
	first, err := reveal("first reveal")
	if err != nil {
		return err
	}
	if err := r.decideBy(probe, "switches.cards.fetchAnswerSigned", first, readFetchAnswerSigned); err != nil {
		return err
	}
	second, err := reveal("second reveal")
	if err != nil {
		return err
	}
	return r.decideBy(probe, "switches.cards.secondReveal", second, readSecondReveal)
}

func probeBankResend(r *run) error {
	const probe = "bank-resend"
	if r.t.Campaign == "" {
		return needsFlag("needs --campaign (a campaignId of GetScratchCardForBank)")
	}
	req := r.bankRequest(r.t.Campaign, r.txn())
	var links [2]string
	var ex [2]*Exchange
	for i := range ex {
		e, err := r.signed("GetScratchCardForBank", r.t.BankURL+"/api/GetScratchCardForBank", req, nil)
		if err != nil {
			return err
		}
		e.Note = []string{"--campaign", "the same extTransactionId again"}[i]
		if err := r.send(e); err != nil {
			return err
		}
		raw, _, ok := envelopeOf(e.Resp)
		var card struct {
			Status   bool   `json:"status"`
			DeepLink string `json:"deepLink"`
		}
		if !ok || json.Unmarshal(raw, &card) != nil || !card.Status || card.DeepLink == "" {
			return ambiguous("GetScratchCardForBank for campaign %q issued no card: %s", r.t.Campaign, describe(e))
		}
		links[i], ex[i] = card.DeepLink, e
	}
	value := "new"
	if links[0] == links[1] {
		value = "original"
	}
	r.set(probe, "switches.cards.bankResend", value, ex[0], ex[1])
	return nil
}

// loadCatalogue reads the channel's offers and their prices, once.
func (r *run) loadCatalogue() error {
	if r.catalogue != nil {
		return nil
	}
	e, err := r.apiKey("getCatalogue", map[string]string{"channelName": r.t.Channel}, "")
	if err != nil {
		return err
	}
	var ans struct {
		Status int `json:"status"`
		Data   struct {
			Offers []struct {
				ID    string `json:"id"`
				Coins int    `json:"coins"`
			} `json:"offers"`
		} `json:"data"`
	}
	if json.Unmarshal(e.Resp, &ans) != nil || ans.Status != http.StatusOK {
		return ambiguous("getCatalogue: %s", describe(e))
	}
	r.catalogue = map[string]int{}
	for _, o := range ans.Data.Offers {
		r.catalogue[o.ID] = o.Coins
		r.catalogueIDs = append(r.catalogueIDs, o.ID)
	}
	return nil
}

// claim posts fetchCouponCode.
func (r *run) claim(offer, vid, txn string, coins int, note string) (*Exchange, error) {
	return r.apiKey("fetchCouponCode", map[string]any{"offerId": offer, "virtualId": vid, "channelName": r.t.Channel,
		"extTransactionId": txn, "coinsUsed": strconv.Itoa(coins)}, note)
}

// couponCode is a delivered coupon's code ("" for a refusal).
func couponCode(e *Exchange) string {
	status, _, data, ok := couponBody(e)
	if !ok || status != http.StatusOK {
		return ""
	}
	c, _ := data["coupon_code"].(string)
	return c
}

// priceOf is an offer's price from the catalogue.
func (r *run) priceOf(offer string) (int, error) {
	if err := r.loadCatalogue(); err != nil {
		return 0, err
	}
	coins, ok := r.catalogue[offer]
	if !ok {
		return 0, ambiguous("offer %q is not in the channel's catalogue", offer)
	}
	return coins, nil
}

// firstOffer is the first --offer and its price: the offer the claim
// probes buy.
func (r *run) firstOffer() (string, int, error) {
	if len(r.t.Offers) == 0 {
		return "", 0, needsFlag("needs --offer (an offer of the channel to claim)")
	}
	coins, err := r.priceOf(r.t.Offers[0])
	return r.t.Offers[0], coins, err
}

// otherOffer is the cross-offer probe's second offer.
func (r *run) otherOffer() string {
	if len(r.t.Offers) > 1 {
		return r.t.Offers[1]
	}
	for _, id := range r.catalogueIDs {
		if id != r.t.Offers[0] {
			return id
		}
	}
	return ""
}

func probeCouponClaims(r *run) error {
	const probe = "coupon-claims"
	offer, coins, err := r.firstOffer()
	if err != nil {
		return err
	}
	vid, txn := r.user(), r.txn()
	first, err := r.claim(offer, vid, txn, coins, "--offer at its price")
	if err != nil {
		return err
	}
	code := couponCode(first)
	if code == "" {
		return ambiguous("the claim of --offer %q was refused: %s", offer, describe(first))
	}
	_ = r.decideBy(probe, "switches.coupons.orderId", first, readOrderID)
	again, err := r.claim(offer, vid, txn, coins, "the same extTransactionId again")
	if err != nil {
		return err
	}
	dup := ""
	switch _, c, _, _ := couponBody(again); {
	case couponCode(again) == code:
		dup = "original"
	case c == "DUPLICATE_TRANSACTION":
		dup = "reject"
	default:
		r.unsure(probe, "switches.coupons.duplicate", ambiguous("%s", describe(again)))
	}
	if dup != "" {
		r.set(probe, "switches.coupons.duplicate", dup, first, again)
	}
	return r.crossOffer(vid, txn, code, dup, first)
}

// crossOffer claims the second offer with the first claim's extTransactionId.
func (r *run) crossOffer(vid, txn, code, dup string, first *Exchange) error {
	const probe, name = "coupon-claims", "switches.coupons.crossOffer"
	other := r.otherOffer()
	if other == "" {
		return needsFlag("needs a second offer (a second --offer, or another offer in the catalogue)")
	}
	coins := r.catalogue[other]
	e, err := r.claim(other, vid, txn, coins, "the first claim's extTransactionId on a second offer")
	if err != nil {
		return err
	}
	_, c, _, _ := couponBody(e)
	_, _, msg := coupon3(e)
	switch {
	case couponCode(e) == code:
		r.set(probe, name, "first", first, e)
	case c != "DUPLICATE_TRANSACTION":
		r.set(probe, name, "new", first, e)
	case dup == "original":
		r.set(probe, name, "reject", first, e)
	case strings.Contains(msg, "on offer") || strings.Contains(msg, "another offer"):
		// A duplicate policy of reject refuses "first" with the same code:
		// only the message can tell them apart.
		r.set(probe, name, "reject", first, e).Note = "read from the refusal's message: with duplicate reject, first answers DUPLICATE_TRANSACTION too"
	case strings.Contains(msg, "already processed"):
		r.set(probe, name, "first", first, e).Note = "read from the refusal's message: with duplicate reject, first answers DUPLICATE_TRANSACTION too"
	default:
		return ambiguous("with duplicate reject, first and reject both answer DUPLICATE_TRANSACTION: %s", describe(e))
	}
	return nil
}

// coupon3 is a coupon answer's status, errorCode and message.
func coupon3(e *Exchange) (int, string, string) {
	var b struct {
		Status    int    `json:"status"`
		ErrorCode string `json:"errorCode"`
		Message   string `json:"message"`
	}
	_ = json.Unmarshal(e.Resp, &b)
	return b.Status, b.ErrorCode, b.Message
}

func probeCouponPrice(r *run) error {
	offer, coins, err := r.firstOffer()
	if err != nil {
		return err
	}
	e, err := r.claim(offer, r.user(), r.txn(), coins+1, "coinsUsed one more than the offer's price")
	if err != nil {
		return err
	}
	switch status, code, _ := coupon3(e); {
	case couponCode(e) != "":
		r.set("coupon-price", "switches.coupons.coinsMismatch", "accept", e)
	case status == http.StatusBadRequest && code == "INVALID_REQUEST":
		r.set("coupon-price", "switches.coupons.coinsMismatch", "refuse", e)
	default:
		return ambiguous("%s", describe(e))
	}
	return nil
}
