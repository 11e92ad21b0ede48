package calibrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// Exchange is one call and its answer, as calibrate saw it.
type Exchange struct {
	// Op is the operation's name (GetReward, fetchCouponCode, ...).
	Op     string
	Method string
	URL    string
	Header http.Header
	Body   []byte
	// Payload is an envelope request's BDATA decoded; Note says what the
	// probe did to the request (SIGN altered, amount left out).
	Payload []byte
	Note    string

	Status     int
	RespHeader http.Header
	Resp       []byte
	// Sent is the local time the call went out; At the time its answer arrived.
	Sent, At time.Time
	// BadSign: the answer's SIGN does not verify with the service certificate.
	BadSign bool
}

// JSON decodes the answer into a map; nil when it is not a JSON object.
func (e *Exchange) JSON() map[string]any {
	var m map[string]any
	if json.Unmarshal(e.Resp, &m) != nil {
		return nil
	}
	return m
}

// send makes one call of the budget: a transport failure, a burst of
// 5xx answers, or answers that are not JSON from the start stop the run.
func (r *run) send(e *Exchange) error {
	if r.stopped != "" {
		return errStopped
	}
	if r.calls >= r.o.Budget {
		return errBudget
	}
	r.calls++
	req, err := http.NewRequestWithContext(r.ctx, e.Method, e.URL, bytes.NewReader(e.Body))
	if err != nil {
		r.stopped = fmt.Sprintf("%s %s: %v", e.Method, e.URL, err)
		return errStopped
	}
	for k, vs := range e.Header {
		req.Header[k] = vs
	}
	if e.Body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	e.Sent = r.o.Now()
	start := time.Now() // the wall clock, whatever Options.Now is
	res, err := r.t.HTTP.Do(req)
	if err == nil {
		e.Resp, err = io.ReadAll(io.LimitReader(res.Body, 1<<20))
		res.Body.Close()
		r.noteLatency(e, time.Since(start))
	}
	if err != nil {
		r.stopped = fmt.Sprintf("transport failure on %s %s: %v", e.Method, e.URL, err)
		return errStopped
	}
	e.Status, e.RespHeader, e.At = res.StatusCode, res.Header, r.o.Now()
	r.verify(e)
	return r.judge(e)
}

// verify checks an answer envelope's SIGN with --service-cert, as a
// publisher must: an answer that does not verify is marked in its
// evidence, and the first one is a warning of the run.
func (r *run) verify(e *Exchange) {
	var env struct{ SIGN, BDATA string }
	if r.t.ServiceKey == nil || json.Unmarshal(e.Resp, &env) != nil || env.SIGN == "" || env.BDATA == "" {
		return
	}
	if err := envelope.Verify(r.t.ServiceKey, env.BDATA, env.SIGN); err != nil {
		e.BadSign = true
		if len(r.warnings) == 0 {
			r.warnings = append(r.warnings, fmt.Sprintf("the SIGN of %s's answer does not verify with --service-cert (%v): is it the service's certificate?", e.Op, err))
		}
	}
}

// judge stops the run on a 5xx burst or on a target that does not
// answer JSON at all.
func (r *run) judge(e *Exchange) error {
	if e.Status >= 500 {
		r.burst++
		if r.burst >= burstLimit {
			r.stopped = fmt.Sprintf("%d answers in a row were 5xx (the last: %s %s answered HTTP %d)", r.burst, e.Method, e.URL, e.Status)
			return errStopped
		}
	} else {
		r.burst = 0
	}
	if json.Valid(e.Resp) && len(bytes.TrimSpace(e.Resp)) > 0 {
		r.anyJSON = true
		return nil
	}
	if !r.anyJSON {
		r.nonJSON++
		if r.nonJSON >= nonsenseLimit {
			r.stopped = fmt.Sprintf("the target does not speak this service's API: its first %d answers were not JSON (the last: %s %s answered HTTP %d %s)",
				r.nonJSON, e.Method, e.URL, e.Status, contentType(e))
			return errStopped
		}
	}
	return nil
}

func contentType(e *Exchange) string {
	if ct := e.RespHeader.Get("Content-Type"); ct != "" {
		return ct
	}
	return "without a Content-Type"
}

// signed builds an envelope request of payload (the channel's CHANNELID,
// SIGN over BDATA) to base+path; alter changes the envelope before it is sent.
func (r *run) signed(op, url string, payload any, alter func(*publisher.Envelope)) (*Exchange, error) {
	env, err := publisher.Seal(r.t.Key, r.t.ChannelID, payload)
	if err != nil {
		return nil, needsFlag("cannot sign with --key: " + err.Error())
	}
	if alter != nil {
		alter(&env)
	}
	body, _ := json.Marshal(env)
	raw, _ := json.Marshal(payload)
	e := &Exchange{Op: op, Method: http.MethodPost, URL: url, Body: body, Payload: raw, Header: http.Header{}}
	return e, nil
}

// maxShown bounds each side of an exchange in the evidence.
const maxShown = 400

// Evidence is the exchange in one line, secrets masked by mask.
func (e *Exchange) Evidence(mask func(string) string) string {
	req := string(e.Body)
	if e.Payload != nil {
		req = "envelope of " + string(e.Payload)
	}
	if e.Note != "" {
		req += " (" + e.Note + ")"
	}
	path := e.URL
	if i := strings.Index(path, "://"); i >= 0 {
		if j := strings.IndexByte(path[i+3:], '/'); j >= 0 {
			path = path[i+3+j:]
		}
	}
	line := fmt.Sprintf("%s %s %s -> HTTP %d %s", e.Method, path, clip(req), e.Status, clip(answerShown(e)))
	if e.BadSign {
		line += " [its SIGN does not verify with --service-cert]"
	}
	line = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(line)
	return mask(strings.TrimSpace(line))
}

// answerShown is the answer with an envelope's BDATA decoded.
func answerShown(e *Exchange) string {
	var env struct {
		CHANNELID string
		SIGN      *string
		BDATA     string
	}
	if json.Unmarshal(e.Resp, &env) == nil && env.BDATA != "" {
		if raw, err := decodeB64(env.BDATA); err == nil {
			signed := "unsigned"
			if env.SIGN != nil && *env.SIGN != "" {
				signed = "signed"
			}
			return fmt.Sprintf("%s envelope of %s", signed, bytes.TrimSpace(raw))
		}
	}
	return string(bytes.TrimSpace(e.Resp))
}

func clip(s string) string {
	if len(s) <= maxShown {
		return s
	}
	return s[:maxShown] + "..."
}

// secretField is a JSON field holding a credential.
var secretField = regexp.MustCompile(`"(token|referenceKey|sessionId|SIGN|appKey|secKey)"\s*:\s*"[^"]+"`)

// mask hides every credential of the run in evidence text: the fields
// that hold them, and each secret the run sent or received.
func (r *run) mask(s string) string {
	s = secretField.ReplaceAllString(s, `"$1":"***"`)
	for _, sec := range r.secrets {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, "***")
		}
	}
	return s
}

// remember adds a credential to mask.
func (r *run) remember(secret string) {
	if secret != "" {
		r.secrets = append(r.secrets, secret)
	}
}
