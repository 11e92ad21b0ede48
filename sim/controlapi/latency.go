package controlapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// LatencyProfile is one latency profile as the control API takes and
// gives it (POST /__sim/latency; a scenario file's latency[] item):
// durations as Go writes them ("250ms"), exactly one of Fixed, Uniform
// and LogNormal.
type LatencyProfile struct {
	Endpoint  string            `json:"endpoint"`
	Channel   string            `json:"channel,omitempty"`
	Fixed     string            `json:"fixed,omitempty"`
	Uniform   *LatencyUniform   `json:"uniform,omitempty"`
	LogNormal *LatencyLogNormal `json:"lognormal,omitempty"`
	Max       string            `json:"max,omitempty"`
	Seed      int64             `json:"seed,omitempty"`
	Samples   int               `json:"samples,omitempty"`
}

// LatencyUniform is a delay drawn evenly between Min and Max.
type LatencyUniform struct {
	Min string `json:"min"`
	Max string `json:"max"`
}

// LatencyLogNormal is a log-normal delay by its median and p99.
type LatencyLogNormal struct {
	Median string `json:"median"`
	P99    string `json:"p99"`
}

// String is the profile in one line.
func (p LatencyProfile) String() string {
	var shape string
	switch {
	case p.Uniform != nil:
		shape = fmt.Sprintf("uniform %s..%s", p.Uniform.Min, p.Uniform.Max)
	case p.LogNormal != nil:
		shape = fmt.Sprintf("log-normal median %s p99 %s", p.LogNormal.Median, p.LogNormal.P99)
	default:
		shape = "fixed " + p.Fixed
	}
	if p.Max != "" && p.Max != "0s" {
		shape += ", cap " + p.Max
	}
	if p.Seed != 0 {
		shape += fmt.Sprintf(", seed %d", p.Seed)
	}
	if p.Samples > 0 {
		shape += fmt.Sprintf(" (from %d samples)", p.Samples)
	}
	ch := "every channel"
	if p.Channel != "" {
		ch = "channel " + p.Channel
	}
	return fmt.Sprintf("%-28s %-22s %s", p.Endpoint, ch, shape)
}

// LatencyList is GET /__sim/latency: the run-time profiles (consulted
// first) and each scenario's own, by scenario name.
type LatencyList struct {
	Profiles  []LatencyProfile            `json:"profiles"`
	Scenarios map[string][]LatencyProfile `json:"scenarios"`
}

// SetLatency puts p in force (POST /__sim/latency), replacing the profile
// of its endpoint and channel; the answer is the profile as kept.
func (c *Client) SetLatency(ctx context.Context, p LatencyProfile) (LatencyProfile, error) {
	var out LatencyProfile
	return out, c.CallJSON(ctx, http.MethodPost, "/__sim/latency", p, &out)
}

// Latency lists the profiles in force (GET /__sim/latency).
func (c *Client) Latency(ctx context.Context) (LatencyList, error) {
	var out LatencyList
	return out, c.CallJSON(ctx, http.MethodGet, "/__sim/latency", nil, &out)
}

// RemoveLatency drops the run-time profiles of endpoint ("" every one)
// for channel ("" every channel) (DELETE /__sim/latency) and returns
// those removed.
func (c *Client) RemoveLatency(ctx context.Context, endpoint, channel string) ([]LatencyProfile, error) {
	q := url.Values{}
	if endpoint != "" {
		q.Set("endpoint", endpoint)
	}
	if channel != "" {
		q.Set("channel", channel)
	}
	raw, err := c.Do(ctx, http.MethodDelete, "/__sim/latency", q, "", nil)
	if err != nil {
		return nil, err
	}
	var out struct {
		Removed []LatencyProfile `json:"removed"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("control API answered DELETE /__sim/latency with what is not JSON: %w", err)
	}
	return out.Removed, nil
}
