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
	ring []string
	next int
}{set: map[string]struct{}{}}

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
		if len(known.ring) < maxKnown {
			known.ring = append(known.ring, v)
		} else {
			delete(known.set, known.ring[known.next])
			known.ring[known.next] = v
			known.next = (known.next + 1) % maxKnown
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
			vals = append(vals, string(m[2]))
		}
	}
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
	if len(b) < opaqueLen {
		return b
	}
	return []byte(MaskKnown(string(b), Fingerprint))
}
