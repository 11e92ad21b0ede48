// Package shop is a small publisher service of the kind `rewardsim sweep`
// grades: it signs a user in (GetAuthToken, a signed call), redeems the
// user's coins for a coupon and lists the user's coupons. It is configured
// only from the environment a sweep (or a developer) gives it:
// REWARDSIM_URL, REWARDSIM_CONTROL_URL (whence the channel's test key),
// REWARDSIM_CHANNEL and REWARDSIM_CHANNEL_ID.
//
// Two mistakes are planted behind SWEEP_EXAMPLE_MISTAKES=on, for the
// sweep to find: after a dropped connection whose claim did go through,
// it claims again under a new extTransactionId; after COUPON_EXHAUSTED it
// tries once more under a new one.
package shop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// The credentials a channel made `like` DEMOBANK carries: DEMOBANK's test
// appKey and secKey.
const (
	appKey = "DEMOAPPKEY"
	secKey = "DEMOSECKEY"
)

// Shop calls the coupon host for one channel.
type Shop struct {
	base, controlURL   string
	channel, channelID string
	k                  keys
	http               *http.Client
	mistakes           bool
	txn                atomic.Int64
}

// FromEnv configures a Shop from the environment.
func FromEnv() (*Shop, error) {
	s := &Shop{base: os.Getenv("REWARDSIM_URL"), controlURL: os.Getenv("REWARDSIM_CONTROL_URL"), channel: os.Getenv("REWARDSIM_CHANNEL"), channelID: os.Getenv("REWARDSIM_CHANNEL_ID"),
		// Shorter than a delayed answer: the shop would rather reconcile.
		http:     &http.Client{Timeout: 300 * time.Millisecond},
		mistakes: os.Getenv("SWEEP_EXAMPLE_MISTAKES") == "on"}
	if s.base == "" || s.channel == "" {
		return nil, errors.New("set REWARDSIM_URL and REWARDSIM_CHANNEL")
	}
	if s.channelID == "" {
		s.channelID = s.channel
	}
	s.txn.Store(time.Now().UnixNano())
	return s, nil
}

// Coupon is a delivered coupon.
type Coupon struct {
	Code    string `json:"coupon_code"`
	OfferID string `json:"id"`
	ExtTxID string `json:"extTransactionId"`
}

// Refused is a claim the coupon host refused for good (CPN-3): the user
// must be told, not retried.
type Refused struct{ Code string }

func (r Refused) Error() string { return "the offer refused the claim: " + r.Code }

// final are the errorCodes no retry changes.
var final = map[string]bool{"COUPON_EXHAUSTED": true, "MAX_LIMIT_REACHED": true, "NON_ELIGIBLE": true, "INVALID_OFFER": true}

const attempts = 3

// Redeem claims a coupon of offer for the user. A claim whose outcome is
// unknown (no answer, or one it cannot read) is reconciled through
// getUserCoupons and retried under the same extTransactionId (CPN-4).
func (s *Shop) Redeem(ctx context.Context, virtualID, offerID, coins string) (Coupon, error) {
	txn := s.newTxn()
	var last error
	for i := 0; i < attempts; i++ {
		c, status, code, err := s.claim(ctx, virtualID, offerID, txn, coins)
		switch {
		case err == nil && status == http.StatusOK:
			return c, nil
		case err != nil:
			got, found := s.reconcile(ctx, virtualID, offerID, txn)
			if found && s.mistakes && dropped(err) {
				txn = s.newTxn() // planted mistake: a second coupon for one purchase
				last = err
				continue
			}
			if found {
				return got, nil
			}
			last = err
		case code == "COUPON_EXHAUSTED" && s.mistakes && i == 0:
			txn = s.newTxn() // planted mistake: "stock may be back"
			last = Refused{code}
		case final[code]:
			return Coupon{}, Refused{code}
		case status >= 500:
			last = fmt.Errorf("fetchCouponCode: HTTP %d %s", status, code)
		default:
			return Coupon{}, fmt.Errorf("fetchCouponCode: HTTP %d %s", status, code)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return Coupon{}, fmt.Errorf("gave up after %d attempts: %w", attempts, last)
}

// dropped: the connection closed without an answer (not a timeout).
func dropped(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}

func (s *Shop) newTxn() string { return fmt.Sprintf("SHOP-%d", s.txn.Add(1)) }

// claim sends one fetchCouponCode. err is an unknown outcome: no answer,
// or a 200 whose body does not read.
func (s *Shop) claim(ctx context.Context, virtualID, offerID, txn, coins string) (c Coupon, status int, code string, err error) {
	body := map[string]string{"offerId": offerID, "virtualId": virtualID, "channelName": s.channel, "extTransactionId": txn, "coinsUsed": coins}
	var ans struct {
		Status    int    `json:"status"`
		ErrorCode string `json:"errorCode"`
		Data      Coupon `json:"data"`
	}
	status, err = s.post(ctx, "/api/fetchCouponCode", body, &ans)
	// The coupon host may answer a refusal with HTTP 200 and the status
	// in the body: the body's word is the one to read.
	if err == nil && ans.ErrorCode != "" && ans.Status != 0 {
		status = ans.Status
	}
	return ans.Data, status, ans.ErrorCode, err
}

// MyCoupons lists the user's coupons of offer ("" : every offer),
// retrying a failure of the platform.
func (s *Shop) MyCoupons(ctx context.Context, virtualID, offerID string) ([]Coupon, error) {
	var last error
	for i := 0; i < attempts; i++ {
		cs, status, err := s.list(ctx, virtualID, offerID)
		switch {
		case err == nil && status == http.StatusOK:
			return cs, nil
		case err == nil && status < 500:
			return nil, fmt.Errorf("getUserCoupons: HTTP %d", status)
		case err == nil:
			err = fmt.Errorf("getUserCoupons: HTTP %d", status)
		}
		last = err
		time.Sleep(20 * time.Millisecond)
	}
	return nil, fmt.Errorf("gave up after %d attempts: %w", attempts, last)
}

func (s *Shop) list(ctx context.Context, virtualID, offerID string) ([]Coupon, int, error) {
	body := map[string]string{"virtualId": virtualID, "channelName": s.channel}
	if offerID != "" {
		body["offerId"] = offerID
	}
	var ans struct {
		Data struct {
			Coupons []Coupon `json:"coupons"`
		} `json:"data"`
	}
	status, err := s.post(ctx, "/api/getUserCoupons", body, &ans)
	return ans.Data.Coupons, status, err
}

// reconcile looks for the claim txn among the user's coupons.
func (s *Shop) reconcile(ctx context.Context, virtualID, offerID, txn string) (Coupon, bool) {
	cs, err := s.MyCoupons(ctx, virtualID, offerID)
	if err != nil {
		return Coupon{}, false
	}
	for _, c := range cs {
		if c.ExtTxID == txn {
			return c, true
		}
	}
	return Coupon{}, false
}

// post sends body with the channel's API key; a 200 body that does not
// decode is an error, any other answer's body is read as far as it goes.
func (s *Shop) post(ctx context.Context, path string, body, into any) (int, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+path, bytes.NewReader(raw))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CHANNELID", s.channelID)
	req.Header.Set("Authorization", "ServiceAppKey "+appKey+":"+secKey)
	res, err := s.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return res.StatusCode, err
	}
	if err := json.Unmarshal(data, into); err != nil && res.StatusCode == http.StatusOK {
		return res.StatusCode, fmt.Errorf("%s: unreadable answer: %w", path, err)
	}
	return res.StatusCode, nil
}
