package webhook

import (
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
)

// clause: WH-2 (retries)
func TestBackoff(t *testing.T) {
	s := func(n int) model.Duration { return model.Duration(time.Duration(n) * time.Second) }
	cases := []struct {
		policy Policy
		waits  []time.Duration // after attempts 1, 2, 3, ...
	}{
		{Policy{Kind: RetryExponential, Interval: s(30)}, []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute}},
		{Policy{Kind: RetryFixed, Interval: s(10)}, []time.Duration{10 * time.Second, 10 * time.Second, 10 * time.Second}},
		{Policy{Kind: RetryNone}, []time.Duration{0}},
		{DefaultPolicy, []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute}},
	}
	for _, c := range cases {
		for i, want := range c.waits {
			if got := backoff(c.policy, i+1); got != want {
				t.Errorf("%+v after attempt %d: wait %s, want %s", c.policy, i+1, got, want)
			}
		}
	}
}

func TestCheckPolicy(t *testing.T) {
	cases := []struct {
		in   Policy
		want Policy // after defaults
		err  string
	}{
		{Policy{Kind: RetryNone, Interval: model.Duration(time.Hour), MaxAttempts: 9}, Policy{Kind: RetryNone, MaxAttempts: 1}, ""},
		{Policy{Kind: RetryFixed}, Policy{Kind: RetryFixed, Interval: DefaultPolicy.Interval, MaxAttempts: DefaultPolicy.MaxAttempts}, ""},
		{Policy{Kind: RetryExponential, Interval: model.Duration(time.Second), MaxAttempts: 20}, Policy{Kind: RetryExponential, Interval: model.Duration(time.Second), MaxAttempts: 20}, ""},
		{Policy{Kind: RetryFixed, Interval: -1, MaxAttempts: 2}, Policy{Kind: RetryFixed, Interval: DefaultPolicy.Interval, MaxAttempts: 2}, ""},
		{Policy{Kind: RetryFixed, MaxAttempts: 21}, Policy{}, "maxAttempts 21 is outside 1..20"},
		{Policy{Kind: RetryFixed, MaxAttempts: -1}, Policy{}, "maxAttempts -1 is outside 1..20"},
		{Policy{Kind: "linear"}, Policy{}, `retry kind "linear" is not one of none, fixed, exponential`},
		{Policy{}, Policy{}, `retry kind "" is not one of`},
	}
	for _, c := range cases {
		p := c.in
		err := checkPolicy(&p)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("checkPolicy(%+v) = %v, want %q", c.in, err, c.err)
			} else if !refusal.Is(err, refusal.Invalid) {
				t.Errorf("checkPolicy(%+v): %T is not an invalid refusal", c.in, err)
			}
			continue
		}
		if err != nil || p != c.want {
			t.Errorf("checkPolicy(%+v) = %+v, %v; want %+v", c.in, p, err, c.want)
		}
	}
}

// clause: WH-2 (what counts as an acknowledged push)
func TestJudge(t *testing.T) {
	cases := []struct {
		status int
		body   string
		want   string // part of the finding, "" for accepted
	}{
		{200, `{"status":"OK"}`, ""},
		{204, `{"status":"OK","extra":1}`, ""},
		{299, `{"status":"OK"}`, ""},
		{300, `{"status":"OK"}`, "receiver answered HTTP 300"},
		{500, `{"status":"OK"}`, "receiver answered HTTP 500"},
		{199, `{"status":"OK"}`, "receiver answered HTTP 199"},
		{200, ``, "is not a JSON object"},
		{200, `null`, "is not a JSON object"},
		{200, `["OK"]`, "is not a JSON object"},
		{200, `OK`, "is not a JSON object"},
		{200, `{"status":"ok"}`, `status is ok, not the string "OK"`},
		{200, `{"status":true}`, `status is true, not the string "OK"`},
		{200, `{}`, `status is <nil>`},
	}
	for _, c := range cases {
		got := judge(c.status, []byte(c.body))
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("judge(%d, %s) = %q, want %q", c.status, c.body, got, c.want)
		}
	}
	// A long answer is quoted short in the finding.
	if got := judge(200, []byte(strings.Repeat("x", 5000))); len(got) > 200 {
		t.Errorf("finding for a 5000-byte answer is %d bytes", len(got))
	}
}
