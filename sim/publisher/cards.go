package publisher

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// CardOffer holds the detail fields of a revealed card (2.4) and of a revealed reward (2.5).
type CardOffer struct {
	OfferTitle       string `json:"offerTitle"`
	Description      string `json:"description"`
	Terms            string `json:"terms"`
	CouponCode       string `json:"couponCode"`
	EndDate          string `json:"endDate"`
	CouponType       string `json:"couponType"`
	CouponImage      string `json:"couponImage"`
	RedeemSteps      string `json:"redeemSteps"`
	BannerDisplayURL string `json:"bannerDisplayUrl"`
	IconImage        string `json:"iconImage"`
	Details          string `json:"details"`
	SiteID           string `json:"siteId"`
	SiteName         string `json:"siteName"`
	CoverImage       string `json:"coverImage"`
	PromoLink        string `json:"promoLink"`
	BgColor          string `json:"bgColor"`
}

// Card is an element of rewards[] (2.4); the CardOffer fields are set once revealed.
type Card struct {
	RewardID          uint64   `json:"rewardId"`
	IsAlreadyRewarded bool     `json:"isAlreadyRewarded"`
	CreatedDateTime   string   `json:"createdDateTime"`
	TrackLink         []string `json:"trackLink"`
	CardOffer
	IsSeen *bool `json:"isSeen,omitempty"`
}

// GetRewardRequest is the plain JSON body of GetReward.
type GetRewardRequest struct {
	ChannelName         string   `json:"channelName"`
	VirtualID           string   `json:"virtualId"`
	TriggerEventType    string   `json:"triggerEventType"`
	ExtTransactionID    string   `json:"extTransactionId"`
	Amount              *float64 `json:"amount,omitempty"`
	DateAndTime         string   `json:"dateandtime"`
	AdditionalParams    string   `json:"additionalParams,omitempty"`
	SubTriggerEventType string   `json:"subTriggerEventType,omitempty"`
	DeviceType          string   `json:"deviceType,omitempty"`
}

// GetRewardAnswer is GetReward's answer.
type GetRewardAnswer struct {
	Status     bool     `json:"status"`
	Message    string   `json:"message"`
	Rewards    []Card   `json:"rewards"`
	Clicktrack []string `json:"clicktrack"`
}

// RevealedReward is FetchRewardInfo's BDATA (2.5) in the simulator's reading.
type RevealedReward struct {
	Status            bool   `json:"status"`
	Message           string `json:"message"`
	RewardID          uint64 `json:"rewardId"`
	IsAlreadyRewarded bool   `json:"isAlreadyRewarded"`
	CardOffer
	IsSeen           bool     `json:"isSeen"`
	IsFallback       bool     `json:"isFallback"`
	RevealedDateTime string   `json:"revealedDateTime"`
	ClickTrack       []string `json:"clickTrack"`
}

// CardList is GetAllScratchCardsByUserId's answer in the simulator's reading.
type CardList struct {
	Status  bool   `json:"status"`
	Message string `json:"message"`
	Page    int    `json:"page"`
	Limit   int    `json:"limit"`
	Total   int    `json:"total"`
	Rewards []Card `json:"rewards"`
}

// BankCardRequest is GetScratchCardForBank's BDATA: all strings.
type BankCardRequest struct {
	VirtualID        string `json:"virtualId"`
	TransDateAndTime string `json:"transDateAndTime"`
	Amount           string `json:"amount"`
	MCC              string `json:"mcc"`
	ExtTransactionID string `json:"extTransactionId"`
	CampaignID       string `json:"campaignId"`
	DeviceToken      string `json:"deviceToken"`
}

// BankCard is GetScratchCardForBank's answer (2.6).
type BankCard struct {
	Status   bool   `json:"status"`
	Message  string `json:"message"`
	DeepLink string `json:"deepLink"`
	Banner   string `json:"banner"`
}

// bearerJSON sends a bearer call and decodes a JSON answer of any status
// into out; a 401 is an *HTTPError.
func (c *Client) bearerJSON(ctx context.Context, method, url, bearer string, body any, out any) (*Response, error) {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return nil, err
		}
	}
	h := http.Header{}
	if bearer != "" {
		h.Set("Authorization", "Bearer "+bearer)
	}
	res, err := c.Do(ctx, method, url, h, raw)
	if err != nil {
		return nil, err
	}
	if res.StatusCode == http.StatusUnauthorized {
		return res, &HTTPError{StatusCode: res.StatusCode, Body: res.Body}
	}
	if err := json.Unmarshal(res.Body, out); err != nil {
		return res, fmt.Errorf("answer (HTTP %d): %w: %s", res.StatusCode, err, res.Body)
	}
	return res, nil
}

// GetReward posts body (a GetRewardRequest or any JSON value) with a
// reference token. Not eligible is a normal answer with Status false.
func (c *Client) GetReward(ctx context.Context, referenceToken string, body any) (*Response, GetRewardAnswer, error) {
	var out GetRewardAnswer
	res, err := c.bearerJSON(ctx, http.MethodPost, c.RewardsURL+"/api/GetReward", referenceToken, body, &out)
	return res, out, err
}

// FetchRewardInfo reveals rewardID for virtualID with a user token.
func (c *Client) FetchRewardInfo(ctx context.Context, userToken, virtualID string, rewardID uint64) (*Response, RevealedReward, error) {
	var out RevealedReward
	res, err := c.CallSigned(ctx, c.RewardsURL+"/api/FetchRewardInfo", userToken, map[string]string{
		"rewardId": strconv.FormatUint(rewardID, 10), "virtualId": virtualID, "channelName": c.Channel,
	})
	res, err = decodeBDATA(res, err, &out)
	return res, out, err
}

// ListCards lists the token's user's cards; query is the raw query string ("page=1&limit=10").
func (c *Client) ListCards(ctx context.Context, userToken, query string) (*Response, CardList, error) {
	var out CardList
	url := c.RewardsURL + "/api/GetAllScratchCardsByUserId"
	if query != "" {
		url += "?" + query
	}
	res, err := c.bearerJSON(ctx, http.MethodGet, url, userToken, nil, &out)
	return res, out, err
}

// BankCard calls GetScratchCardForBank. A bare unsigned not-eligible body
// is decoded into the answer too (res.Envelope is then nil).
func (c *Client) BankCard(ctx context.Context, req BankCardRequest) (*Response, BankCard, error) {
	var out BankCard
	res, err := c.CallSigned(ctx, c.BankURL+"/api/GetScratchCardForBank", "", req)
	if he, ok := err.(*HTTPError); ok && res != nil && json.Unmarshal(res.Body, &out) == nil && he.StatusCode == http.StatusOK {
		return res, out, nil
	}
	res, err = decodeBDATA(res, err, &out)
	return res, out, err
}
