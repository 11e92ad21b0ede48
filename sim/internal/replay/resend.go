package replay

import (
	"bytes"
	"context"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/match"
	"github.com/rewardsim/rewardsim/sim/internal/outbound"
	"github.com/rewardsim/rewardsim/sim/internal/recfile"
	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

// Targets are the base URLs of the hosts to replay against. An empty
// host falls back to Rewards.
type Targets struct {
	Rewards, Bank, Hotdeals string
}

// ParseTargets reads "URL" (one listener for all hosts) or
// "REWARDS,BANK,HOTDEALS".
func ParseTargets(s string) (Targets, error) {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = strings.TrimRight(strings.TrimSpace(p), "/")
		if u, err := url.Parse(parts[i]); err != nil || u.Scheme == "" || u.Host == "" {
			return Targets{}, fmt.Errorf("target %q is not an absolute URL", p)
		}
	}
	switch len(parts) {
	case 1:
		return Targets{parts[0], parts[0], parts[0]}, nil
	case 3:
		return Targets{parts[0], parts[1], parts[2]}, nil
	}
	return Targets{}, fmt.Errorf("--target takes one URL or three (rewards,bank,hotdeals), not %d", len(parts))
}

// bases are the distinct base URLs of t.
func (t Targets) bases() []string {
	var out []string
	for _, b := range []string{t.Rewards, t.Bank, t.Hotdeals} {
		if b != "" && !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	return out
}

func (t Targets) base(host string) string {
	switch host {
	case "bank":
		if t.Bank != "" {
			return t.Bank
		}
	case "hotdeals":
		if t.Hotdeals != "" {
			return t.Hotdeals
		}
	}
	return t.Rewards
}

// ResendOptions tune Resend.
type ResendOptions struct {
	// Key re-signs envelopes whose payload changed through captured values.
	Key *rsa.PrivateKey
	// Control is the target's control API, for control steps
	// (HostControl); ControlToken its token, if any.
	Control, ControlToken string
	// Secrets are credentials the journal only holds as fingerprints (an
	// API key header, say): a header whose fingerprint matches one of
	// them is sent with the real value.
	Secrets []string
	// Volatile are the fields masked by default (VolatileFields of the
	// answer schemas); the recording's masks and then Masks extend them.
	Volatile map[string]recfile.MaskKind
	// Masks extend the recording's masks.
	Masks map[string]recfile.MaskKind
	// AnswerNames are replaced (first by second) in every replayed answer
	// before it is compared, after values are captured from it: the
	// names of an isolated replay's channels (Isolation.AnswerNames).
	AnswerNames [][2]string
	HTTP        *http.Client
	// Step, if set, hears of every step once it is compared.
	Step func(StepReport)
	// Waiting, if set, hears every WaitNotice while one request is
	// outstanding (a fault's delay, a slow target).
	Waiting func(st *recfile.Step, waited time.Duration)
}

// WaitNotice is how often ResendOptions.Waiting is told of an outstanding
// request.
var WaitNotice = 5 * time.Second

// StepReport is one step's outcome.
type StepReport struct {
	Step        *recfile.Step
	Status      int
	Elapsed     time.Duration
	Differences []recfile.Difference
}

// ResendResult is the outcome of re-sending the steps.
type ResendResult struct {
	Steps       int                  `json:"steps"`
	Differences []recfile.Difference `json:"differences"`
}

// OK reports whether the replay matched the recording.
func (r *ResendResult) OK() bool { return len(r.Differences) == 0 }

// NoRedirectClient is the replay's default client: a redirect (a
// click-and-redirect URL, say) is an answer to compare, not to follow.
func NoRedirectClient() *http.Client {
	return &http.Client{
		Timeout:       time.Minute,
		CheckRedirect: outbound.Never,
	}
}

// Resend re-sends every step of s to t and compares each answer with the
// recorded one. An error means the replay could not run (a transport
// failure); differences are in the result.
func Resend(ctx context.Context, s *recfile.Recording, t Targets, o ResendOptions) (*ResendResult, error) {
	if o.HTTP == nil {
		o.HTTP = NoRedirectClient()
	}
	masks := recfile.Masks(o.Volatile, s.Masks, o.Masks)
	given := map[string]string{} // the secrets given, by their fingerprint
	for _, v := range o.Secrets {
		given[secrets.Fingerprint(v)] = v
	}
	vars := map[string]string{}
	res := &ResendResult{Differences: []recfile.Difference{}}
	for i := range s.Steps {
		st := &s.Steps[i]
		base := t.base(st.Host)
		if st.Host == recfile.HostControl {
			if base = o.Control; base == "" {
				res.Differences = append(res.Differences, recfile.Difference{Step: st.ID, Label: st.Label(), Where: "request",
					Note: "a control step (a webhook push) needs the target's control API, and none was given"})
				continue
			}
		}
		req, err := build(ctx, st, base, vars, given, o.Key)
		if err == nil && st.Host == recfile.HostControl && o.ControlToken != "" {
			req.Header.Set("Authorization", "Bearer "+o.ControlToken)
		}
		if err != nil {
			res.Differences = append(res.Differences, recfile.Difference{Step: st.ID, Label: st.Label(), Where: "request", Note: err.Error()})
			continue
		}
		start := time.Now()
		ans, err := doWaiting(o, st, req)
		if err != nil {
			return res, fmt.Errorf("step %s %s: %w", st.ID, st.Label(), err)
		}
		body, err := io.ReadAll(ans.Body)
		ans.Body.Close()
		if err != nil {
			return res, fmt.Errorf("step %s: reading the answer: %w", st.ID, err)
		}
		res.Steps++
		got := observed(ans, body)
		capture(st, got, vars)
		got = renamed(got, o.AnswerNames)
		diffs := compare(st, got, masks)
		res.Differences = append(res.Differences, diffs...)
		if o.Step != nil {
			o.Step(StepReport{Step: st, Status: got.status, Elapsed: time.Since(start), Differences: diffs})
		}
	}
	return res, nil
}

// doWaiting sends req, telling o.Waiting while the answer is late.
func doWaiting(o ResendOptions, st *recfile.Step, req *http.Request) (*http.Response, error) {
	if o.Waiting == nil {
		return o.HTTP.Do(req)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		start := time.Now()
		t := time.NewTicker(WaitNotice)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				o.Waiting(st, time.Since(start).Round(time.Second))
			}
		}
	}()
	return o.HTTP.Do(req)
}

// renamed reads an answer under the recorded names.
func renamed(a answer, names [][2]string) answer {
	if len(names) == 0 {
		return a
	}
	swap := func(b []byte) []byte {
		for _, n := range names {
			b = bytes.ReplaceAll(b, []byte(n[0]), []byte(n[1]))
		}
		return b
	}
	a.body, a.bdata = swap(a.body), swap(a.bdata)
	h := a.header.Clone()
	for k, vs := range h {
		for i := range vs {
			vs[i] = string(swap([]byte(vs[i])))
		}
		h[k] = vs
	}
	a.header = h
	return a
}

// render replaces placeholders; unknown names stay and are reported.
func render(s string, vars map[string]string, missing *[]string) string {
	return recfile.Placeholder.ReplaceAllStringFunc(s, func(m string) string {
		name := m[2 : len(m)-1]
		if v, ok := vars[name]; ok {
			return v
		}
		*missing = append(*missing, name)
		return m
	})
}

// renderJSON replaces placeholders inside JSON string literals, escaping
// the value as a JSON string body.
func renderJSON(raw json.RawMessage, vars map[string]string, missing *[]string) []byte {
	return recfile.Placeholder.ReplaceAllFunc(raw, func(m []byte) []byte {
		name := string(m[2 : len(m)-1])
		v, ok := vars[name]
		if !ok {
			*missing = append(*missing, name)
			return m
		}
		q, _ := json.Marshal(v)
		return q[1 : len(q)-1]
	})
}

func build(ctx context.Context, st *recfile.Step, base string, vars, secrets map[string]string, key *rsa.PrivateKey) (*http.Request, error) {
	var missing []string
	target := render(st.Path, vars, &missing)
	if st.Query != "" {
		target += "?" + render(st.Query, vars, &missing)
	}
	var body []byte
	switch {
	case st.Envelope != nil:
		env := envelope.Envelope{CHANNELID: st.Envelope.CHANNELID, SIGN: st.Envelope.SIGN, BDATA: st.Envelope.BDATA}
		if recfile.Placeholder.Match(st.Envelope.Payload) {
			payload := renderJSON(st.Envelope.Payload, vars, &missing)
			env.BDATA = base64.StdEncoding.EncodeToString(payload)
			// Re-signed only when the recording was signed: an unsigned
			// call (FetchRewardInfo may be) stays unsigned.
			if st.Envelope.SIGN != "" {
				if key == nil {
					return nil, fmt.Errorf("the payload changed through captured values and no publisher key was given to re-sign it")
				}
				sign, err := envelope.Sign(key, env.BDATA)
				if err != nil {
					return nil, err
				}
				env.SIGN = sign
			}
		}
		body, _ = json.Marshal(env)
	case len(st.Body) > 0:
		body = renderJSON(st.Body, vars, &missing)
	case st.Text != "":
		body = []byte(render(st.Text, vars, &missing))
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no captured value for %s (an earlier step failed?)", strings.Join(missing, ", "))
	}
	req, err := http.NewRequestWithContext(ctx, st.Method, base+target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body == nil {
		req.Body = http.NoBody
	}
	for k, v := range st.Header {
		if scheme, cred, ok := strings.Cut(v, " "); ok && secrets[cred] != "" {
			v = scheme + " " + secrets[cred]
		} else if secrets[v] != "" {
			v = secrets[v]
		}
		req.Header.Set(k, render(v, vars, &missing))
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no captured value for %s (an earlier step failed?)", strings.Join(missing, ", "))
	}
	return req, nil
}

// answer is an answer as replayed.
type answer struct {
	status int
	header http.Header
	body   []byte
	bdata  []byte // decoded BDATA of an envelope answer
}

func observed(res *http.Response, body []byte) answer {
	a := answer{status: res.StatusCode, header: res.Header, body: body}
	var env struct {
		BDATA *string `json:"BDATA"`
	}
	if json.Unmarshal(body, &env) == nil && env.BDATA != nil {
		if raw, err := base64.StdEncoding.DecodeString(*env.BDATA); err == nil && json.Valid(raw) {
			a.bdata = raw
		}
	}
	return a
}

// capture stores this step's captured values from the live answer.
func capture(st *recfile.Step, a answer, vars map[string]string) {
	for _, c := range st.Captures {
		src := a.body
		if c.From == "bdata" {
			src = a.bdata
		}
		v, ok := recfile.Decode(src)
		if !ok {
			continue
		}
		val, ok := match.Resolve(v, c.Pointer)
		if !ok {
			continue
		}
		s := fmt.Sprint(val)
		if c.URLPath {
			u, err := url.Parse(s)
			if err != nil {
				continue
			}
			s = u.EscapedPath()
			if u.RawQuery != "" {
				s += "?" + u.RawQuery
			}
		}
		vars[c.Name] = s
	}
}
