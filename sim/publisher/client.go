// Package publisher is a publisher-side client of the service: it signs
// envelopes, sends bearer and API-key calls, checks for the bare failure
// shape before verifying a signature (as the contract asks), and verifies
// every signed answer with the service certificate. The simulator's own
// tests use it the way a publisher would; publishers may too.
package publisher

import (
	"bytes"
	"context"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/outbound"
)

// Client calls the three hosts of the service as one publisher (channel).
type Client struct {
	HTTP                             *http.Client
	RewardsURL, BankURL, HotdealsURL string
	ChannelID                        string          // CHANNELID of requests
	Channel                          string          // bName / channelName
	Key                              *rsa.PrivateKey // signs requests
	ServiceKey                       *rsa.PublicKey  // verifies answers; nil skips verification
	AppKey, SecKey                   string          // fetchCouponCode credentials
}

// Response is one answer as received.
type Response struct {
	StatusCode int
	Header     http.Header
	Body       []byte
	// Exactly one of the following is set for a signed endpoint's answer.
	Envelope *Envelope // a signed envelope (verified if ServiceKey is set)
	Failure  *Failure  // a bare unsigned failure body
	// BDATA is the decoded payload of Envelope.
	BDATA []byte
}

// Failure is the bare unsigned failure body {STATUS, ERRORSTRING}.
type Failure struct {
	STATUS      string `json:"STATUS"`
	ERRORSTRING string `json:"ERRORSTRING"`
}

// FailureError is returned when a signed endpoint answers a bare failure.
type FailureError struct {
	StatusCode int
	Failure
}

func (e *FailureError) Error() string {
	return fmt.Sprintf("service answered %s: %s (HTTP %d)", e.STATUS, e.ERRORSTRING, e.StatusCode)
}

// HTTPError is returned for an answer that is neither a signed envelope
// nor a bare failure, such as an HTTP 401.
type HTTPError struct {
	StatusCode int
	Body       []byte
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.StatusCode, strings.TrimSpace(string(e.Body)))
}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return defaultHTTP
}

// defaultHTTP follows no redirect to another host: signed bodies and
// credentials go only to the base URLs given.
var defaultHTTP = &http.Client{CheckRedirect: outbound.SameOrigin}

// Do sends a request and reads the whole answer.
func (c *Client) Do(ctx context.Context, method, url string, header http.Header, body []byte) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http().Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	return &Response{StatusCode: res.StatusCode, Header: res.Header, Body: data}, nil
}

// PostEnvelope sends env to url (with an optional bearer token) and
// interprets the answer as a signed endpoint's: the bare failure shape is
// checked first, then the envelope's signature.
func (c *Client) PostEnvelope(ctx context.Context, url, bearer string, env Envelope) (*Response, error) {
	body, err := json.Marshal(env)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	if bearer != "" {
		h.Set("Authorization", "Bearer "+bearer)
	}
	res, err := c.Do(ctx, http.MethodPost, url, h, body)
	if err != nil {
		return nil, err
	}
	return res, c.interpretSigned(res)
}

// CallSigned seals payload as this channel and posts it to url.
func (c *Client) CallSigned(ctx context.Context, url, bearer string, payload any) (*Response, error) {
	env, err := Seal(c.Key, c.ChannelID, payload)
	if err != nil {
		return nil, err
	}
	return c.PostEnvelope(ctx, url, bearer, env)
}

func (c *Client) interpretSigned(res *Response) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(res.Body, &probe); err != nil {
		return &HTTPError{StatusCode: res.StatusCode, Body: res.Body}
	}
	if _, ok := probe["STATUS"]; ok {
		var f Failure
		if err := json.Unmarshal(res.Body, &f); err != nil {
			return &HTTPError{StatusCode: res.StatusCode, Body: res.Body}
		}
		res.Failure = &f
		return &FailureError{StatusCode: res.StatusCode, Failure: f}
	}
	if _, ok := probe["BDATA"]; !ok {
		return &HTTPError{StatusCode: res.StatusCode, Body: res.Body}
	}
	var env Envelope
	if err := json.Unmarshal(res.Body, &env); err != nil {
		return &HTTPError{StatusCode: res.StatusCode, Body: res.Body}
	}
	res.Envelope = &env
	if c.ServiceKey != nil {
		if err := envelope.Verify(c.ServiceKey, env.BDATA, env.SIGN); err != nil {
			return fmt.Errorf("answer signature: %w", err)
		}
	}
	raw, err := envelope.Decode(env.BDATA)
	if err != nil {
		return err
	}
	res.BDATA = raw
	return nil
}

// decodeBDATA fills out from a successful signed answer.
func decodeBDATA(res *Response, err error, out any) (*Response, error) {
	if err != nil {
		return res, err
	}
	if err := json.Unmarshal(res.BDATA, out); err != nil {
		return res, fmt.Errorf("answer BDATA: %w", err)
	}
	return res, nil
}

// ReferenceToken is the BDATA of a getSecuredReferenceToken answer.
type ReferenceToken struct {
	ReferenceKey string `json:"referenceKey"`
	ExpireDate   string `json:"expireDate"`
}

// UserToken is the BDATA of a GetAuthToken answer.
type UserToken struct {
	Token      string `json:"token"`
	ExpireDate string `json:"expireDate"`
}

// Session is the BDATA of a GenerateSessionInfoV2 answer.
type Session struct {
	SessionID string `json:"sessionId"`
}

// ReferenceToken calls getSecuredReferenceToken with this channel's bName.
func (c *Client) ReferenceToken(ctx context.Context) (ReferenceToken, error) {
	var out ReferenceToken
	res, err := c.CallSigned(ctx, c.RewardsURL+"/api/getSecuredReferenceToken", "", map[string]string{"bName": c.Channel})
	_, err = decodeBDATA(res, err, &out)
	return out, err
}

// UserToken calls GetAuthToken for virtualID.
func (c *Client) UserToken(ctx context.Context, virtualID string) (UserToken, error) {
	var out UserToken
	res, err := c.CallSigned(ctx, c.RewardsURL+"/api/GetAuthToken", "", map[string]string{"virtualId": virtualID, "channelName": c.Channel})
	_, err = decodeBDATA(res, err, &out)
	return out, err
}

// Session calls GenerateSessionInfoV2 for virtualID.
func (c *Client) Session(ctx context.Context, virtualID string) (Session, error) {
	var out Session
	res, err := c.CallSigned(ctx, c.BankURL+"/api/GenerateSessionInfoV2", "", map[string]string{"bName": c.Channel, "virtualId": virtualID})
	_, err = decodeBDATA(res, err, &out)
	return out, err
}

// IsFailure reports whether err is a bare failure with that ERRORSTRING.
func IsFailure(err error, errorString string) bool {
	var fe *FailureError
	return errors.As(err, &fe) && fe.ERRORSTRING == errorString
}
