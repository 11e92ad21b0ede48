package replay

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/recfile"
	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

// candidate is a value an answer handed out: a capture if a later step
// uses it. It keeps no value, only where the value was found.
type candidate struct {
	seq  uint64 // the journal entry of the answer
	step int    // its step's index in this pass
	from string // "body" or "bdata"
	ptr  string
	url  bool
	host string // the step's host, for a later step that follows the URL
}

// suffix is the capture's name after its step's id.
func (c *candidate) suffix() string {
	s := strings.ReplaceAll(c.ptr, "/", ".")
	if c.url {
		s += ".url"
	}
	return s
}

func (c *candidate) capture() recfile.Capture {
	return recfile.Capture{Name: fmt.Sprintf("s%d%s", c.step+1, c.suffix()), From: c.from, Pointer: c.ptr, URLPath: c.url}
}

// useKey names a capture by its step and name: two candidates of a step
// with one name (the same pointer in body and bdata) are used together,
// as they share the Placeholder.
type useKey struct {
	at     uint64 // the step's index (Build) or its entry's sequence number (Stream)
	suffix string
}

// valueKey stands for a handed-out value in the stepper's indexes: a
// digest, so an index costs the same whatever the values' length.
type valueKey [16]byte

func keyOf(s string) valueKey {
	sum := sha256.Sum256([]byte(s))
	return valueKey(sum[:16])
}

// stepper turns entries into steps, in journal order, substituting in
// each request the values earlier answers handed out. use is told of
// every substitution before it is made; it may refuse one (the value
// then stays as recorded, or masked).
type stepper struct {
	fields               map[string]bool
	use                  func(*candidate) bool
	indexOnly            bool // only the captures matter: the answers are not masked for Expect
	steps                int
	pushed               map[string]bool // referenceIds already a step
	byValue, byFP, byURL map[valueKey]*candidate
	ptrs                 map[string]string // the pointers seen, shared by their candidates
	secrets              *secrets.Memory   // what the journal learnt to mask (BuildOptions)
}

func newStepper(o BuildOptions, use func(*candidate) bool) *stepper {
	fs := o.CaptureFields
	if len(fs) == 0 {
		fs = DefaultCaptureFields
	}
	b := &stepper{fields: map[string]bool{}, use: use, pushed: map[string]bool{},
		byValue: map[valueKey]*candidate{}, byFP: map[valueKey]*candidate{}, byURL: map[valueKey]*candidate{}, ptrs: map[string]string{}, secrets: o.Secrets}
	for _, f := range fs {
		b.fields[f] = true
	}
	return b
}

// find is the latest candidate for key that use accepts, or nil.
func (b *stepper) find(m map[valueKey]*candidate, key string) *candidate {
	c := m[keyOf(key)]
	if c == nil || !b.use(c) {
		return nil
	}
	return c
}

func ref(c *candidate) string { return "${" + c.capture().Name + "}" }

// next is the step of e, if e makes one, and the values its answer hands
// out (candidates for captures).
func (b *stepper) next(e *journal.Entry) (recfile.Step, []*candidate, bool) {
	if e.Kind == journal.KindWebhook {
		st, ref, ok := pushStep(e, b.steps+1)
		if !ok || b.pushed[ref] {
			return recfile.Step{}, nil, false
		}
		b.pushed[ref] = true
		b.steps++
		return st, nil, true
	}
	if e.Kind != journal.KindExchange {
		return recfile.Step{}, nil, false
	}
	st := recfile.Step{
		ID: fmt.Sprintf("s%d", b.steps+1), Host: e.Host, Endpoint: e.Endpoint,
		Method: e.Method, Path: e.Path, Query: e.Query, Header: map[string]string{},
	}
	if st.Host == "" && e.Listener != "all" {
		st.Host = e.Listener
	}

	b.request(e, &st)

	if !b.indexOnly {
		st.Expect = expect(e, b.secrets)
	}
	st.MaskEchoes(b.secrets)

	cs := b.handedOut(e, st)
	b.steps++
	return st, cs, true
}

// request fills st's request from e's: a value an earlier answer handed
// out becomes a reference to its capture, a credential no answer handed
// out is masked.
func (b *stepper) request(e *journal.Entry, st *recfile.Step) {
	// A credential in a query or form (the sessionId of /microsite
	// and /sdk/launch) is replayed from the answer that handed it out,
	// and never kept: one no answer of the recording handed out is masked.
	queryValue := func(v string) string {
		if plain, err := url.QueryUnescape(v); err == nil {
			if c := b.find(b.byValue, plain); c != nil {
				return ref(c)
			}
		}
		return recfile.MaskedQueryValue
	}
	if c := b.find(b.byURL, e.Path+"?"+e.Query); c != nil {
		st.Path, st.Query = ref(c), ""
		if st.Host == "" {
			// A URL an answer handed out is served by the host that
			// handed it out (the coupon URL by hotdeals).
			st.Host = c.host
		}
	} else {
		st.Query = secrets.MaskQuery(st.Query, queryValue)
	}
	for k, v := range e.Request.Header {
		if skipHeaders[k] {
			continue
		}
		if scheme, cred, ok := strings.Cut(v, " "); ok {
			if c := b.find(b.byFP, cred); c != nil {
				v = scheme + " " + ref(c)
			}
		}
		st.Header[k] = secrets.MaskQuery(v, queryValue)
	}
	substitute := func(raw json.RawMessage) json.RawMessage {
		return recfile.RewriteStrings(raw, func(key, val string) (string, bool) {
			if !b.fields[key] {
				return val, false
			}
			if c := b.find(b.byValue, val); c != nil {
				return ref(c), true
			}
			return val, false
		})
	}
	switch {
	case len(e.Request.BDATA) > 0:
		var env struct{ CHANNELID, SIGN, BDATA string }
		_ = json.Unmarshal(e.Request.Body, &env)
		st.Envelope = &recfile.Envelope{CHANNELID: env.CHANNELID, SIGN: env.SIGN, BDATA: env.BDATA, Payload: substitute(e.Request.BDATA)}
	case len(e.Request.Body) > 0:
		st.Body = substitute(e.Request.Body)
	default:
		st.Text = secrets.MaskQuery(e.Request.Text, queryValue)
	}
}

// handedOut is what e's answer hands out, each value a candidate for the
// captures of later steps.
func (b *stepper) handedOut(e *journal.Entry, st recfile.Step) []*candidate {
	// The latest answer to hand a value out is the one a later step
	// captures it from.
	var cs []*candidate
	for _, part := range []struct {
		from string
		raw  json.RawMessage
	}{{"body", e.Response.Body}, {"bdata", e.Response.BDATA}} {
		v, ok := recfile.Decode(part.raw)
		if !ok {
			continue
		}
		recfile.Leaves(v, "", func(ptr, key string, val any) {
			str, isStr := val.(string)
			if num, ok := val.(json.Number); ok {
				str, isStr = string(num), true
			}
			if !isStr || str == "" {
				return
			}
			if b.fields[key] {
				c := b.candidate(e, st, part.from, ptr, false)
				cs = append(cs, c)
				b.byValue[keyOf(str)] = c
				b.byFP[keyOf(secrets.Fingerprint(str))] = c
			}
			if u, err := url.Parse(str); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Path != "" {
				c := b.candidate(e, st, part.from, ptr, true)
				cs = append(cs, c)
				b.byURL[keyOf(u.Path+"?"+u.RawQuery)] = c
			}
		})
	}
	return cs
}

// expect is the answer recorded, its secrets masked.
func expect(e *journal.Entry, mem *secrets.Memory) recfile.Expect {
	x := recfile.Expect{Status: e.Status, Header: map[string]string{}, Text: recfile.MaskText(e.Response.Text, mem)}
	for _, h := range keptAnswerHeaders {
		if v := e.Response.Header[h]; v != "" {
			x.Header[h] = v
		}
	}
	if len(e.Response.BDATA) > 0 {
		x.Body = recfile.MaskEnvelope(e.Response.Body)
		x.BDATA = recfile.MaskSecrets(e.Response.BDATA)
	} else if len(e.Response.Body) > 0 {
		x.Body = recfile.MaskSecrets(e.Response.Body)
	}
	return x
}

func (b *stepper) candidate(e *journal.Entry, st recfile.Step, from, ptr string, isURL bool) *candidate {
	p, ok := b.ptrs[ptr]
	if !ok {
		b.ptrs[ptr], p = ptr, ptr
	}
	return &candidate{seq: e.Seq, step: b.steps, from: from, ptr: p, url: isURL, host: st.Host}
}

// sortCaptures orders a step's captures by name (then source and
// pointer, so the order never depends on how the answer was walked).
func sortCaptures(cs []recfile.Capture) {
	sort.Slice(cs, func(a, b int) bool {
		x, y := cs[a], cs[b]
		if x.Name != y.Name {
			return x.Name < y.Name
		}
		if x.From != y.From {
			return x.From < y.From
		}
		return x.Pointer < y.Pointer
	})
}
