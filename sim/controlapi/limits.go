package controlapi

import (
	"context"
	"net/http"
	"net/url"
)

// Limit is a channel's capacity limit (docs/limits.md): at most InFlight
// calls answered at once, at most Rate a second (a token bucket of
// Burst), a call over them waiting up to Wait ("250ms", "" or "0": not
// at all) before it is refused. A zero field bounds nothing.
type Limit struct {
	InFlight int     `json:"inFlight,omitempty"`
	Rate     float64 `json:"rate,omitempty"`
	Burst    int     `json:"burst,omitempty"`
	Wait     string  `json:"wait,omitempty"`
}

// LimitStats are a channel limiter's counts since it was set.
type LimitStats struct {
	InFlight int   `json:"inFlight"`
	Waiting  int   `json:"waiting"`
	Admitted int64 `json:"admitted"`
	Waited   int64 `json:"waited"`
	Refused  int64 `json:"refused"`
}

// LimitState is one channel's limit in force (schemas/control.limits.json).
type LimitState struct {
	Channel  string     `json:"channel"`
	Limit    Limit      `json:"limit"`
	Burst    int        `json:"burst"`
	Source   string     `json:"source"`
	Scenario *Limit     `json:"scenario,omitempty"`
	Stats    LimitStats `json:"stats"`
}

// SetLimit sets channel's capacity limit over its scenario's (POST
// /__sim/limits) and returns it as now in force.
func (c *Client) SetLimit(ctx context.Context, channel string, l Limit) (LimitState, error) {
	body := struct {
		Channel string `json:"channel"`
		Limit
	}{channel, l}
	var st LimitState
	err := c.typed(ctx, http.MethodPost, "/__sim/limits", nil, body, &st)
	return st, err
}

// Limits lists the capacity limits in force (GET /__sim/limits), of
// channel only when it is set.
func (c *Client) Limits(ctx context.Context, channel string) ([]LimitState, error) {
	var q url.Values
	if channel != "" {
		q = url.Values{"channel": {channel}}
	}
	var out struct {
		Limits []LimitState `json:"limits"`
	}
	err := c.typed(ctx, http.MethodGet, "/__sim/limits", q, nil, &out)
	return out.Limits, err
}

// RemoveLimit drops channel's run-time limit (DELETE
// /__sim/limits/{channel}); its scenario's, if any, is in force again.
func (c *Client) RemoveLimit(ctx context.Context, channel string) error {
	return c.typed(ctx, http.MethodDelete, "/__sim/limits/"+url.PathEscape(channel), nil, nil, nil)
}
