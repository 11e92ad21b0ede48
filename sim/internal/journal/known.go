package journal

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"sync"
)

// Masking by value (issue 23): every token, referenceKey and sessionId
// the simulator hands out is learnt from its own answers (where their
// field names are the contract's, so exact), and any later appearance of
// that value is masked wherever it is: a query parameter of any name
// (access_token=), any header (X-Auth), a JSON field of any name at any
// depth (userToken, session_id), a path. Name-based masking (mask.go)
// still covers what was never seen issued.
//
// The set is the package's, shared by every journal of a process (a test
// binary runs many simulators; masking another's secret costs nothing),
// and bounded: the oldest values are forgotten first. After a restart
// it is learnt again as entries are read (Masked learns from the entry's
// own answer first).

// opaqueRun finds runs of base64url characters; token.NewOpaque values
// (32 random bytes) are 43 of them.
var opaqueRun = regexp.MustCompile(`[A-Za-z0-9_-]{43,}`)

const opaqueLen = 43

// maxKnown bounds the remembered values (about 10 MB at the bound).
const maxKnown = 1 << 17

var known = struct {
	sync.RWMutex
	set  map[string]struct{}
	ring oldestFirst
}{set: map[string]struct{}{}, ring: oldestFirst{max: maxKnown}}

// oldestFirst is a bounded memory of values: adding one beyond the bound
// forgets the oldest, which add returns.
type oldestFirst struct {
	vals      []string
	next, max int
}

func (r *oldestFirst) add(v string) (forgot string, ok bool) {
	if len(r.vals) < r.max {
		r.vals = append(r.vals, v)
		return "", false
	}
	forgot, r.vals[r.next] = r.vals[r.next], v
	r.next = (r.next + 1) % r.max
	return forgot, true
}

// Learn remembers secret values so they are masked wherever they appear.
func Learn(values ...string) {
	known.Lock()
	defer known.Unlock()
	for _, v := range values {
		if len(v) != opaqueLen {
			continue
		}
		if _, ok := known.set[v]; ok {
			continue
		}
		if old, ok := known.ring.add(v); ok {
			delete(known.set, old)
		}
		known.set[v] = struct{}{}
	}
}

// learnFrom remembers the credentials an answer or request names with
// the contract's own field names: in the JSON, in its BDATA, in a page.
func learnFrom(body []byte, text string) {
	var vals []string
	collect := func(b []byte) {
		for _, m := range secretJSON.FindAllSubmatch(b, -1) {
			if string(m[1]) == "secKey" {
				LearnSecKey(string(m[2]))
				continue
			}
			vals = append(vals, string(m[2]))
		}
	}
	learnSignsIn(body)
	collect(body)
	if m := bdataField.Find(body); m != nil {
		var env struct{ BDATA string }
		if json.Unmarshal(body, &env) == nil {
			if raw, err := base64.StdEncoding.DecodeString(env.BDATA); err == nil {
				collect(raw)
			}
		}
	}
	if text != "" {
		collect([]byte(text))
		for _, m := range secretAttr.FindAllStringSubmatch(text, -1) {
			vals = append(vals, m[2])
		}
		for _, m := range secretQuery.FindAllStringSubmatch(text, -1) {
			vals = append(vals, m[2])
		}
	}
	if len(vals) > 0 {
		Learn(vals...)
	}
}

// MaskKnown replaces every remembered secret in s by with(secret).
func MaskKnown(s string, with func(secret string) string) string {
	return maskSecrets(maskTokens(s, with), with)
}

func maskTokens(s string, with func(secret string) string) string {
	if len(s) < opaqueLen {
		return s
	}
	known.RLock()
	defer known.RUnlock()
	if len(known.set) == 0 {
		return s
	}
	return opaqueRun.ReplaceAllStringFunc(s, func(run string) string {
		if _, ok := known.set[run]; ok {
			return with(run)
		}
		return run
	})
}

func maskKnownBytes(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	if m := MaskKnown(string(b), Fingerprint); m != string(b) {
		return []byte(m)
	}
	return b
}

// learnSignsIn remembers the SIGN of an envelope body.
func learnSignsIn(body []byte) {
	for _, m := range signField.FindAllSubmatch(body, -1) {
		learnSigns(string(m[1]))
	}
}
