package recording

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/secrets"
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
	// Secrets is the memory of the journal the entries come from: what
	// it learnt is masked wherever a step echoes it (nil: only what
	// fields and parameters name).
	Secrets *secrets.Memory
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
// Build holds every step until the last entry says which values later
// steps used; Stream writes the same bytes from two paged reads.
func Build(entries []journal.Entry, o BuildOptions) *Recording {
	s := &Recording{Version: Version, Name: o.Name, Description: o.Description, RecordedAt: o.RecordedAt, Masks: o.Masks, Steps: []Step{}}
	used := map[useKey]bool{}
	b := newStepper(o, func(c *candidate) bool { used[useKey{uint64(c.step), c.suffix()}] = true; return true })
	var all []*candidate
	for i := range entries {
		st, cs, ok := b.next(&entries[i])
		if !ok {
			continue
		}
		all = append(all, cs...)
		s.Steps = append(s.Steps, st)
	}
	for _, c := range all {
		if used[useKey{uint64(c.step), c.suffix()}] {
			s.Steps[c.step].Captures = append(s.Steps[c.step].Captures, c.capture())
		}
	}
	for i := range s.Steps {
		sortCaptures(s.Steps[i].Captures)
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
		// In key order: which of two fields holding one value a later
		// step captures must not depend on map order.
		for _, k := range slices.Sorted(maps.Keys(x)) {
			c := x[k]
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
