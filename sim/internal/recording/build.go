package recording

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
)

// DefaultCaptureFields are the answer fields whose values later requests
// may carry: the credentials and ids the contract hands out.
var DefaultCaptureFields = []string{"referenceKey", "token", "sessionId", "rewardId", "orderId"}

// BuildOptions tune Build.
type BuildOptions struct {
	Name, Description string
	RecordedAt        time.Time
	// CaptureFields replace DefaultCaptureFields when not empty.
	CaptureFields []string
	Masks         map[string]MaskKind
}

// candidate is a value an answer handed out.
type candidate struct {
	step    int
	capture Capture
	value   string
}

// skipHeaders are not replayed: the transport sets them.
var skipHeaders = map[string]bool{
	"Content-Length": true, "Accept-Encoding": true, "Connection": true, "User-Agent": true,
	"Host": true, "Transfer-Encoding": true, "X-Forwarded-For": true,
}

// keptAnswerHeaders are compared on replay.
var keptAnswerHeaders = []string{"Content-Type", "X-Rewardsim-Reason"}

// Build makes a recording of the exchanges among entries, in order. A
// webhook push (its first journaled attempt; retries and repeats share
// its referenceId) becomes a control step that schedules it again, where
// it was delivered: the publisher's later answers may depend on it.
func Build(entries []journal.Entry, o BuildOptions) *Recording {
	fieldSet := map[string]bool{}
	fs := o.CaptureFields
	if len(fs) == 0 {
		fs = DefaultCaptureFields
	}
	for _, f := range fs {
		fieldSet[f] = true
	}
	s := &Recording{Version: Version, Name: o.Name, Description: o.Description, RecordedAt: o.RecordedAt, Masks: o.Masks, Steps: []Step{}}
	byValue := map[string]*candidate{} // value -> latest candidate
	byFP := map[string]*candidate{}    // fingerprint -> latest candidate
	byURL := map[string]*candidate{}   // path?query -> latest candidate
	used := map[string]bool{}
	var all []*candidate
	pushed := map[string]bool{} // referenceIds already a step

	for i := range entries {
		e := &entries[i]
		if e.Kind == journal.KindWebhook {
			if st, ref, ok := pushStep(e, len(s.Steps)+1); ok && !pushed[ref] {
				pushed[ref] = true
				s.Steps = append(s.Steps, st)
			}
			continue
		}
		if e.Kind != journal.KindExchange {
			continue
		}
		st := Step{
			ID: fmt.Sprintf("s%d", len(s.Steps)+1), Host: e.Host, Endpoint: e.Endpoint,
			Method: e.Method, Path: e.Path, Query: e.Query, Header: map[string]string{},
		}
		if st.Host == "" && e.Listener != "all" {
			st.Host = e.Listener
		}
		use := func(c *candidate) string { used[c.capture.Name] = true; return "${" + c.capture.Name + "}" }

		// A credential in a query or form (the sessionId of /microsite
		// and /sdk/launch) is replayed from the answer that handed it out,
		// and never kept: one no answer of the recording handed out is masked.
		queryValue := func(v string) string {
			if plain, err := url.QueryUnescape(v); err == nil && byValue[plain] != nil {
				return use(byValue[plain])
			}
			return maskedQueryValue
		}
		if c := byURL[e.Path+"?"+e.Query]; c != nil {
			st.Path, st.Query = use(c), ""
			if st.Host == "" {
				// A URL an answer handed out is served by the host that
				// handed it out (the coupon URL by hotdeals).
				st.Host = s.Steps[c.step].Host
			}
		} else {
			st.Query = journal.MaskQuery(st.Query, queryValue)
		}
		for k, v := range e.Request.Header {
			if skipHeaders[k] {
				continue
			}
			if scheme, cred, ok := strings.Cut(v, " "); ok && byFP[cred] != nil {
				v = scheme + " " + use(byFP[cred])
			}
			st.Header[k] = journal.MaskQuery(v, queryValue)
		}
		substitute := func(raw json.RawMessage) json.RawMessage {
			return rewriteStrings(raw, func(key, val string) (string, bool) {
				if c := byValue[val]; c != nil && fieldSet[key] {
					return use(c), true
				}
				return val, false
			})
		}
		switch {
		case len(e.Request.BDATA) > 0:
			var env struct{ CHANNELID, SIGN, BDATA string }
			_ = json.Unmarshal(e.Request.Body, &env)
			st.Envelope = &Envelope{CHANNELID: env.CHANNELID, SIGN: env.SIGN, BDATA: env.BDATA, Payload: substitute(e.Request.BDATA)}
		case len(e.Request.Body) > 0:
			st.Body = substitute(e.Request.Body)
		default:
			st.Text = journal.MaskQuery(e.Request.Text, queryValue)
		}

		st.Expect = Expect{Status: e.Status, Header: map[string]string{}, Text: maskText(e.Response.Text)}
		for _, h := range keptAnswerHeaders {
			if v := e.Response.Header[h]; v != "" {
				st.Expect.Header[h] = v
			}
		}
		if len(e.Response.BDATA) > 0 {
			st.Expect.Body = maskEnvelope(e.Response.Body)
			st.Expect.BDATA = maskSecrets(e.Response.BDATA)
		} else if len(e.Response.Body) > 0 {
			st.Expect.Body = maskSecrets(e.Response.Body)
		}

		// What this answer hands out, for later steps.
		for from, raw := range map[string]json.RawMessage{"body": e.Response.Body, "bdata": e.Response.BDATA} {
			v, ok := decode(raw)
			if !ok {
				continue
			}
			leaves(v, "", func(ptr, key string, val any) {
				str, isStr := val.(string)
				if num, ok := val.(json.Number); ok {
					str, isStr = string(num), true
				}
				if !isStr || str == "" {
					return
				}
				name := st.ID + strings.ReplaceAll(ptr, "/", ".")
				if fieldSet[key] {
					c := &candidate{step: len(s.Steps), capture: Capture{Name: name, From: from, Pointer: ptr}, value: str}
					all = append(all, c)
					byValue[str] = c
					byFP[journal.Fingerprint(str)] = c
				}
				if u, err := url.Parse(str); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Path != "" {
					c := &candidate{step: len(s.Steps), capture: Capture{Name: name + ".url", From: from, Pointer: ptr, URLPath: true}, value: str}
					all = append(all, c)
					byURL[u.Path+"?"+u.RawQuery] = c
				}
			})
		}
		s.Steps = append(s.Steps, st)
	}
	for _, c := range all {
		if used[c.capture.Name] {
			s.Steps[c.step].Captures = append(s.Steps[c.step].Captures, c.capture)
		}
	}
	for i := range s.Steps {
		sort.Slice(s.Steps[i].Captures, func(a, b int) bool { return s.Steps[i].Captures[a].Name < s.Steps[i].Captures[b].Name })
	}
	return s
}

// pushWait is the query of a push step: wait up to 10 s for its attempt.
const pushWait = "wait=10s"

// pushStep is the control call that schedules again the push a webhook
// attempt delivered, due at once. The referenceId is left out: a replay's
// push is a new push, with a fresh one.
func pushStep(e *journal.Entry, n int) (Step, string, bool) {
	var ev struct {
		ChannelName, OfferID, EventType, ExpiredDate, Reason, ReasonMessage, ReferenceID string
	}
	if json.Unmarshal(e.Request.Body, &ev) != nil || ev.ChannelName == "" || ev.OfferID == "" {
		return Step{}, "", false
	}
	body, err := marshal(map[string]string{
		"channel": ev.ChannelName, "offerId": ev.OfferID, "eventType": ev.EventType,
		"expiredDate": ev.ExpiredDate, "reason": ev.Reason, "reasonMessage": ev.ReasonMessage,
	})
	if err != nil {
		return Step{}, "", false
	}
	return Step{
		ID: fmt.Sprintf("s%d", n), Host: HostControl, Endpoint: "webhook push", Method: http.MethodPost, Path: "/__sim/webhooks",
		// The control API answers at once by default; the steps after a
		// push (getUserCoupons showing it invalidated) need its attempt in.
		Query:  pushWait,
		Header: map[string]string{"Content-Type": "application/json"}, Body: body, Expect: Expect{Status: http.StatusCreated},
	}, ev.ReferenceID, true
}

// maskEnvelope keeps an answer envelope's CHANNELID and masks SIGN and
// BDATA (compared decoded, through Expect.BDATA).
func maskEnvelope(raw json.RawMessage) json.RawMessage {
	v, ok := decode(raw)
	m, isObj := v.(map[string]any)
	if !ok || !isObj {
		return raw
	}
	for _, k := range []string{"SIGN", "BDATA"} {
		if _, ok := m[k]; ok {
			m[k] = masked
		}
	}
	out, err := marshal(m)
	if err != nil {
		return raw
	}
	return out
}

// decode reads JSON keeping numbers as written.
func decode(raw json.RawMessage) (any, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}

func marshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// leaves calls fn for every scalar leaf with its JSON Pointer and key.
func leaves(v any, ptr string, fn func(ptr, key string, val any)) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			p := ptr + "/" + escape(k)
			switch c.(type) {
			case map[string]any, []any:
				leaves(c, p, fn)
			default:
				fn(p, k, c)
			}
		}
	case []any:
		for i, c := range x {
			p := fmt.Sprintf("%s/%d", ptr, i)
			switch c.(type) {
			case map[string]any, []any:
				leaves(c, p, fn)
			default:
				key := ptr[strings.LastIndex(ptr, "/")+1:]
				fn(p, key, c)
			}
		}
	}
}

// rewriteStrings rewrites the string leaves of raw JSON through fn; raw
// comes back as it was when fn changes nothing (or it is not JSON).
func rewriteStrings(raw json.RawMessage, fn func(key, val string) (string, bool)) json.RawMessage {
	v, ok := decode(raw)
	if !ok {
		return raw
	}
	changed := false
	v = walkStrings(v, "", func(key, val string) (string, bool) {
		out, ok := fn(key, val)
		changed = changed || ok
		return out, ok
	})
	if !changed {
		return raw
	}
	out, err := marshal(v)
	if err != nil {
		return raw
	}
	return out
}

// walkStrings rewrites string leaves; key is the leaf's field name.
func walkStrings(v any, key string, fn func(key, val string) (string, bool)) any {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			x[k] = walkStrings(c, k, fn)
		}
		return x
	case []any:
		for i, c := range x {
			x[i] = walkStrings(c, key, fn)
		}
		return x
	case string:
		s, _ := fn(key, x)
		return s
	}
	return v
}

func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
