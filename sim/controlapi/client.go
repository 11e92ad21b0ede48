// Package controlapi is the one client of a running simulator's control
// API (/__sim/...): the rewardsim CLI and the recordings toolkit (replay
// isolation) both call through it, so the token, the bounds and the
// wording of a refused call are the same everywhere.
package controlapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/outbound"
)

// TokenHeader carries the control token (the simulator also takes it as
// Authorization: Bearer).
const TokenHeader = "X-Rewardsim-Control-Token"

// maxAnswer bounds an answer read into memory (a journal export is the
// largest).
const maxAnswer = 64 << 20

// Client calls one simulator's control API.
type Client struct {
	Base  string // e.g. http://127.0.0.1:8090
	Token string // the control token, if the simulator has one
	// HTTP sends the calls; nil is a client with a one-minute timeout.
	HTTP *http.Client
}

// Answer is one control call's answer, whatever its status.
type Answer struct {
	Status int
	Body   []byte
	Header http.Header
	// Method and Path are the call's, for the wording of a refusal.
	Method, Path string
}

// StatusError is a control call the simulator answered and refused
// (HTTP 300 or above), with its message.
type StatusError struct {
	Method, Path string
	Status       int
	Message      string
	Body         []byte
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("control API answered %s %s with HTTP %d: %s", e.Method, e.Path, e.Status, e.Message)
}

// Refusal is what an answer of 300 or above says: its {"error"}
// message, else its body.
func (a *Answer) Refusal() *StatusError {
	msg := strings.TrimSpace(string(a.Body))
	var e struct{ Error string }
	if json.Unmarshal(a.Body, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	return &StatusError{Method: a.Method, Path: a.Path, Status: a.Status, Message: msg, Body: a.Body}
}

// Send makes one control call and returns its answer whatever its status,
// for a caller that tells one refusal from another (a 404 from a 200);
// only a call that could not be made or read is an error.
func (c *Client) Send(ctx context.Context, method, path string, q url.Values, contentType string, body []byte) (*Answer, error) {
	u := strings.TrimRight(c.Base, "/") + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.Token != "" {
		req.Header.Set(TokenHeader, c.Token)
	}
	hc := c.HTTP
	if hc == nil {
		hc = outbound.Client(time.Minute) // the token goes to no other host
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("control API: %w", err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if err != nil {
		return nil, fmt.Errorf("control API: %w", err)
	}
	return &Answer{Status: res.StatusCode, Body: out, Header: res.Header, Method: method, Path: path}, nil
}

// Do calls the control API and returns the answer body; an answer of 300
// or above is an error carrying the simulator's message.
func (c *Client) Do(ctx context.Context, method, path string, q url.Values, contentType string, body []byte) ([]byte, error) {
	return Body(c.Send(ctx, method, path, q, contentType, body))
}

// PostJSON POSTs body as JSON and returns the answer body.
func (c *Client) PostJSON(ctx context.Context, path string, body any) ([]byte, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return c.Do(ctx, http.MethodPost, path, nil, "application/json", raw)
}

// CallJSON sends in as JSON (nil sends no body) and decodes the answer
// into out (nil ignores it); a refusal is a *StatusError, a call that
// could not be made another error.
func (c *Client) CallJSON(ctx context.Context, method, path string, in, out any) error {
	return c.typed(ctx, method, path, nil, in, out)
}

// typed is CallJSON with a query.
func (c *Client) typed(ctx context.Context, method, path string, q url.Values, in, out any) error {
	var raw []byte
	contentType := ""
	if in != nil {
		var err error
		if raw, err = json.Marshal(in); err != nil {
			return err
		}
		contentType = "application/json"
	}
	data, err := c.Do(ctx, method, path, q, contentType, raw)
	if err != nil || out == nil {
		return err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("control API answered %s %s with what is not JSON: %w", method, path, err)
	}
	return nil
}
