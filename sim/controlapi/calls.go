package controlapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// The typed calls: one method for each control route the CLI uses, so no
// caller spells a path, escapes a name or encodes a body itself. Each
// returns the Answer whatever its status (a caller tells a refusal from
// an unreachable simulator, and may print the body as it came); the
// request bodies are the control schemas' (schemas/control.*.json).

// ClockMove is the body of POST /__sim/clock (Mode offset, frozen or
// real; Time RFC 3339) and of POST /__sim/clock/advance (By, a Go
// duration); Channel moves only that channel's own clock.
type ClockMove struct {
	Mode    string `json:"mode,omitempty"`
	Time    string `json:"time,omitempty"`
	By      string `json:"by,omitempty"`
	Channel string `json:"channel,omitempty"`
}

// OnChannel is a body that names one channel, or none for all of them.
type OnChannel struct {
	Channel string `json:"channel,omitempty"`
}

// Channels lists the channels in force.
func (c *Client) Channels(ctx context.Context) (*Answer, error) {
	return c.call(ctx, http.MethodGet, "/__sim/channels", nil, nil)
}

// RegisterChannel registers a channel (control.channel.json).
func (c *Client) RegisterChannel(ctx context.Context, spec any) (*Answer, error) {
	return c.call(ctx, http.MethodPost, "/__sim/channels", nil, spec)
}

// ChannelToken mints a bearer token for channel.
func (c *Client) ChannelToken(ctx context.Context, channel string) (*Answer, error) {
	return c.call(ctx, http.MethodPost, "/__sim/channels/"+url.PathEscape(channel)+"/token", nil, nil)
}

// Channel shows one channel.
func (c *Client) Channel(ctx context.Context, channel string) (*Answer, error) {
	return c.call(ctx, http.MethodGet, "/__sim/channels/"+url.PathEscape(channel), nil, nil)
}

// RemoveChannel removes a channel registered at run time.
func (c *Client) RemoveChannel(ctx context.Context, channel string) (*Answer, error) {
	return c.call(ctx, http.MethodDelete, "/__sim/channels/"+url.PathEscape(channel), nil, nil)
}

// Clock shows the global clock, or channel's.
func (c *Client) Clock(ctx context.Context, channel string) (*Answer, error) {
	return c.call(ctx, http.MethodGet, "/__sim/clock", channelQuery(channel), nil)
}

// SetClock sets the clock's mode (and time).
func (c *Client) SetClock(ctx context.Context, m ClockMove) (*Answer, error) {
	return c.call(ctx, http.MethodPost, "/__sim/clock", nil, m)
}

// AdvanceClock moves the clock forward by m.By.
func (c *Client) AdvanceClock(ctx context.Context, m ClockMove) (*Answer, error) {
	return c.call(ctx, http.MethodPost, "/__sim/clock/advance", nil, m)
}

// DropClock takes channel's own clock away.
func (c *Client) DropClock(ctx context.Context, channel string) (*Answer, error) {
	return c.call(ctx, http.MethodDelete, "/__sim/clock", channelQuery(channel), nil)
}

// ArmFault arms a fault rule (control.fault.json); the answer is the
// rule armed, a FaultStatus.
func (c *Client) ArmFault(ctx context.Context, rule FaultRule) (*Answer, error) {
	return c.call(ctx, http.MethodPost, "/__sim/faults", nil, rule)
}

// Faults lists the fault rules (a FaultList); active: only those still
// able to fire.
func (c *Client) Faults(ctx context.Context, active bool) (*Answer, error) {
	var q url.Values
	if active {
		q = url.Values{"active": {"true"}}
	}
	return c.call(ctx, http.MethodGet, "/__sim/faults", q, nil)
}

// DisarmFault disarms one rule by id.
func (c *Client) DisarmFault(ctx context.Context, id string) (*Answer, error) {
	return c.call(ctx, http.MethodDelete, "/__sim/faults/"+url.PathEscape(id), nil, nil)
}

// DisarmFaults disarms every rule.
func (c *Client) DisarmFaults(ctx context.Context) (*Answer, error) {
	return c.call(ctx, http.MethodDelete, "/__sim/faults", nil, nil)
}

// Health is the liveness answer.
func (c *Client) Health(ctx context.Context) (*Answer, error) {
	return c.call(ctx, http.MethodGet, "/__sim/health", nil, nil)
}

// Journal reads journal entries by the journal's filters q.
func (c *Client) Journal(ctx context.Context, q url.Values) (*Answer, error) {
	return c.call(ctx, http.MethodGet, "/__sim/journal", q, nil)
}

// Recording exports a slice of the journal as a recording.
func (c *Client) Recording(ctx context.Context, q url.Values) (*Answer, error) {
	return c.call(ctx, http.MethodGet, "/__sim/recording", q, nil)
}

// Report is the conformance report.
func (c *Client) Report(ctx context.Context, q url.Values) (*Answer, error) {
	return c.call(ctx, http.MethodGet, "/__sim/report", q, nil)
}

// Scenarios lists the loaded scenarios.
func (c *Client) Scenarios(ctx context.Context) (*Answer, error) {
	return c.call(ctx, http.MethodGet, "/__sim/scenarios", nil, nil)
}

// Scenario is one loaded scenario as in force (secrets masked).
func (c *Client) Scenario(ctx context.Context, name string) (*Answer, error) {
	return c.call(ctx, http.MethodGet, "/__sim/scenarios/"+url.PathEscape(name), nil, nil)
}

// UploadScenario loads a scenario file (YAML); q: activate, channel.
func (c *Client) UploadScenario(ctx context.Context, yml []byte, q url.Values) (*Answer, error) {
	return c.call(ctx, http.MethodPost, "/__sim/scenarios", q, yml)
}

// ActivateScenario makes name govern channel, or every channel without one.
func (c *Client) ActivateScenario(ctx context.Context, name, channel string) (*Answer, error) {
	return c.call(ctx, http.MethodPost, "/__sim/scenarios/"+url.PathEscape(name)+"/activate", nil, OnChannel{channel})
}

// ResetState wipes channel's state, or every channel's.
func (c *Client) ResetState(ctx context.Context, channel string) (*Answer, error) {
	return c.call(ctx, http.MethodPost, "/__sim/state/reset", nil, OnChannel{channel})
}

// UserState is one user's tokens, sessions, cards and coupons.
func (c *Client) UserState(ctx context.Context, channel, user string) (*Answer, error) {
	return c.call(ctx, http.MethodGet, "/__sim/state/users/"+url.PathEscape(channel)+"/"+url.PathEscape(user), nil, nil)
}

// Stories lists the failure stories.
func (c *Client) Stories(ctx context.Context) (*Answer, error) {
	return c.call(ctx, http.MethodGet, "/__sim/stories", nil, nil)
}

// ApplyStory applies a story to channel.
func (c *Client) ApplyStory(ctx context.Context, name, channel string) (*Answer, error) {
	return c.call(ctx, http.MethodPost, "/__sim/stories/"+url.PathEscape(name)+"/apply", channelQuery(channel), nil)
}

// ClearStories takes channel's stories away.
func (c *Client) ClearStories(ctx context.Context, channel string) (*Answer, error) {
	return c.call(ctx, http.MethodPost, "/__sim/stories/clear", channelQuery(channel), nil)
}

// Switches lists the behaviour switches, as in force on channel.
func (c *Client) Switches(ctx context.Context, channel string) (*Answer, error) {
	return c.call(ctx, http.MethodGet, "/__sim/switches", channelQuery(channel), nil)
}

// SetSwitch overrides a switch (control.switch.json).
func (c *Client) SetSwitch(ctx context.Context, body any) (*Answer, error) {
	return c.call(ctx, http.MethodPost, "/__sim/switches", nil, body)
}

// ResetSwitches drops channel's override of name, or of every switch ("").
func (c *Client) ResetSwitches(ctx context.Context, name, channel string) (*Answer, error) {
	path := "/__sim/switches"
	if name != "" {
		path += "/" + url.PathEscape(name)
	}
	return c.call(ctx, http.MethodDelete, path, channelQuery(channel), nil)
}

// Verify counts the calls an expectation matched (control.verify.json).
func (c *Client) Verify(ctx context.Context, expectation any) (*Answer, error) {
	return c.call(ctx, http.MethodPost, "/__sim/verify", nil, expectation)
}

// PushWebhook sends a coupon-status push; q: wait.
func (c *Client) PushWebhook(ctx context.Context, push any, q url.Values) (*Answer, error) {
	return c.call(ctx, http.MethodPost, "/__sim/webhooks", q, push)
}

// PutLastSweep keeps a sweep's report for the dashboard.
func (c *Client) PutLastSweep(ctx context.Context, report any) (*Answer, error) {
	return c.call(ctx, http.MethodPost, "/__sim/sweeps/last", nil, report)
}

// call sends body (nil: none; []byte: a YAML file as it is; else JSON).
func (c *Client) call(ctx context.Context, method, path string, q url.Values, body any) (*Answer, error) {
	var raw []byte
	ct := ""
	switch b := body.(type) {
	case nil:
	case []byte:
		raw, ct = b, "application/yaml"
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			return nil, err
		}
		ct = "application/json"
	}
	return c.Send(ctx, method, path, q, ct, raw)
}

// channelQuery is ?channel=C, or none.
func channelQuery(channel string) url.Values {
	if channel == "" {
		return nil
	}
	return url.Values{"channel": {channel}}
}

// Body is the answer's body when it is not a refusal (status below 300),
// else the error Do would give: for a caller that wants Do's behaviour
// from a typed call.
func Body(a *Answer, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	if a.Status >= 300 {
		return nil, a.Refusal()
	}
	return a.Body, nil
}

// ActiveScenario is the scenario that governs channel.
func (c *Client) ActiveScenario(ctx context.Context, channel string) (*Answer, error) {
	return c.call(ctx, http.MethodGet, "/__sim/scenarios/active", channelQuery(channel), nil)
}

// ClearJournal forgets channel's journal entries.
func (c *Client) ClearJournal(ctx context.Context, channel string) (*Answer, error) {
	return c.call(ctx, http.MethodDelete, "/__sim/journal", channelQuery(channel), nil)
}

// Decoded decodes a typed call's body into out, or gives Body's error.
func Decoded(out any) func(*Answer, error) error {
	return func(a *Answer, err error) error {
		data, err := Body(a, err)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("control API answered %s %s with what is not JSON: %w", a.Method, a.Path, err)
		}
		return nil
	}
}
