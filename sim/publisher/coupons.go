package publisher

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// CouponRequest is the body of fetchCouponCode (CPN-1). CoinsUsed is sent
// as a string, as the contract asks.
type CouponRequest struct {
	OfferID          string `json:"offerId"`
	VirtualID        string `json:"virtualId"`
	ChannelName      string `json:"channelName"`
	ExtTransactionID string `json:"extTransactionId"`
	CoinsUsed        string `json:"coinsUsed"`
}

// Coupon is a delivered coupon (section 2.9), as fetchCouponCode and
// getUserCoupons return it. State, InvalidatedAt and Reason come only
// from getUserCoupons; OrderID only when the service sends it.
type Coupon struct {
	ID               string `json:"id"`
	CouponCode       string `json:"coupon_code"`
	CouponValidity   string `json:"coupon_validity"`
	ExtTransactionID string `json:"extTransactionId"`
	PurchaseTime     string `json:"purchase_time"`
	URL              string `json:"url"`
	OrderID          string `json:"orderId,omitempty"`
	State            string `json:"state,omitempty"`
	InvalidatedAt    string `json:"invalidatedAt,omitempty"`
	Reason           string `json:"reason,omitempty"`
}

// Offer is one entry of getCatalogue (the simulator's reading).
type Offer struct {
	ID            string `json:"id"`
	Title         string `json:"title"`
	Description   string `json:"description,omitempty"`
	Coins         int    `json:"coins"`
	Stock         int    `json:"stock"`
	PurchaseLimit int    `json:"purchase_limit"`
	ValidFrom     string `json:"valid_from,omitempty"`
	ValidTo       string `json:"valid_to,omitempty"`
}

// CouponError is a coupon-host answer whose body status is not 200
// (section 7): the publisher refunds or retries by ErrorCode.
type CouponError struct {
	HTTPStatus int
	Status     int    `json:"status"`
	ErrorCode  string `json:"errorCode"`
	Message    string `json:"message"`
}

func (e *CouponError) Error() string {
	return fmt.Sprintf("%d %s: %s (HTTP %d)", e.Status, e.ErrorCode, e.Message, e.HTTPStatus)
}

// APIKeyHeader is the header set of the coupon host's API-key auth.
func (c *Client) APIKeyHeader() http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("X-CHANNELID", c.ChannelID)
	h.Set("Authorization", "ServiceAppKey "+c.AppKey+":"+c.SecKey)
	return h
}

// PostAPIKey posts body (JSON-encoded unless it is []byte) to a coupon-host path.
func (c *Client) PostAPIKey(ctx context.Context, path string, body any) (*Response, error) {
	raw, isRaw := body.([]byte)
	if !isRaw {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return nil, err
		}
	}
	return c.Do(ctx, http.MethodPost, c.HotdealsURL+path, c.APIKeyHeader(), raw)
}

// decodeCoupon reads a coupon-host answer: data into out when the body
// status is 200, else a *CouponError.
func decodeCoupon(res *Response, err error, out any) (*Response, error) {
	if err != nil {
		return res, err
	}
	var env struct {
		Status    int             `json:"status"`
		ErrorCode string          `json:"errorCode"`
		Message   string          `json:"message"`
		Data      json.RawMessage `json:"data"`
	}
	if json.Unmarshal(res.Body, &env) != nil || env.Status == 0 {
		return res, &HTTPError{StatusCode: res.StatusCode, Body: res.Body}
	}
	if env.Status != http.StatusOK {
		return res, &CouponError{HTTPStatus: res.StatusCode, Status: env.Status, ErrorCode: env.ErrorCode, Message: env.Message}
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		return res, fmt.Errorf("answer data: %w", err)
	}
	return res, nil
}

// FetchCouponCode claims a coupon after the user's coins were burnt.
// ChannelName defaults to this client's channel. A body status other than
// 200 is a *CouponError; a timeout is an error from the HTTP client (then
// reconcile with UserCoupons before retrying or refunding).
func (c *Client) FetchCouponCode(ctx context.Context, req CouponRequest) (Coupon, error) {
	if req.ChannelName == "" {
		req.ChannelName = c.Channel
	}
	var out Coupon
	res, err := c.PostAPIKey(ctx, "/api/fetchCouponCode", req)
	_, err = decodeCoupon(res, err, &out)
	return out, err
}

// UserCoupons lists a user's coupons for an offer (getUserCoupons, the
// simulator's reading of its shape).
func (c *Client) UserCoupons(ctx context.Context, virtualID, offerID string) ([]Coupon, error) {
	var out struct {
		Coupons []Coupon `json:"coupons"`
	}
	body := map[string]string{"virtualId": virtualID, "channelName": c.Channel}
	if offerID != "" { // "" lists the user's coupons of every offer
		body["offerId"] = offerID
	}
	res, err := c.PostAPIKey(ctx, "/api/getUserCoupons", body)
	_, err = decodeCoupon(res, err, &out)
	return out.Coupons, err
}

// Catalogue lists the channel's offers (getCatalogue, the simulator's
// reading); with a virtualId, only those open to that user.
func (c *Client) Catalogue(ctx context.Context, virtualID string) ([]Offer, error) {
	body := map[string]string{"channelName": c.Channel}
	if virtualID != "" {
		body["virtualId"] = virtualID
	}
	var out struct {
		Offers []Offer `json:"offers"`
	}
	res, err := c.PostAPIKey(ctx, "/api/getCatalogue", body)
	_, err = decodeCoupon(res, err, &out)
	return out.Offers, err
}

// IsCouponError reports whether err is a coupon-host error with that errorCode.
func IsCouponError(err error, code string) bool {
	var ce *CouponError
	return errors.As(err, &ce) && ce.ErrorCode == code
}
