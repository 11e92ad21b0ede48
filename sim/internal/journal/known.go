package journal

import (
	"bytes"
	"strings"
	"sync"
)

// Masking by value (issue 23): every token, referenceKey and sessionId
// the simulator hands out, and every envelope SIGN, is learnt from the
// exchanges the journal writes, and any later appearance of that value
// is masked wherever it is: a query parameter of any name
// (access_token=), any header (X-Auth), a JSON field of any name at any
// depth (userToken, session_id), a path. Name-based masking (mask.go)
// still covers what was never seen issued.
//
// What is remembered is a 64-bit hash of each value, not the value: a
// signature is 344 characters and a busy run learns tens of thousands,
// which as strings held the heap above the memory limit and made the GC
// the largest cost of every request (issue 25). The journal persists the
// hashes it learns (journal.go), so masking holds across a restart.
//
// The memory is the package's, shared by every journal of a process (a
// test binary runs many simulators; masking another's secret costs
// nothing), and bounded: the oldest values are forgotten first.

// opaqueLen is the length of a token.NewOpaque value: 32 random bytes
// in unpadded base64url.
const opaqueLen = 43

// Bounds of the remembered values (8 bytes and a map slot each).
const (
	maxKnown = 1 << 17
	maxSigns = 1 << 14
	// maxSignLen is the longest signature form looked for (RSA-8192's
	// base64 is 1,368 characters).
	maxSignLen = 1400
)

// MaskKind says what a remembered hash stands for.
type MaskKind byte

const (
	// MaskOpaque is a token, referenceKey or sessionId.
	MaskOpaque MaskKind = 1
	// MaskSign is an envelope signature (standard base64).
	MaskSign MaskKind = 2
)

// Mask is one remembered value as the journal persists it: its kind,
// hash and length.
type Mask struct {
	Kind MaskKind
	Hash uint64
	Len  int
}

var known = struct {
	sync.RWMutex
	opaque hashRing
	signs  hashRing
	// signLens are the lengths of the remembered signatures: few (one
	// per key size in use), so a scan tries each at a candidate start.
	signLens []int
}{opaque: hashRing{oldestFirst[uint64, struct{}]{max: maxKnown}}, signs: hashRing{oldestFirst[uint64, struct{}]{max: maxSigns}}}

// oldestFirst is a bounded map: putting a new key beyond max forgets the
// oldest. The hashes to mask, the secKeys and the credentials' owners
// are each one.
type oldestFirst[K comparable, V any] struct {
	m         map[K]V
	ring      []K
	next, max int
}

// put stores v under k and reports whether k is new.
func (r *oldestFirst[K, V]) put(k K, v V) bool {
	if r.m == nil {
		r.m = map[K]V{}
	}
	_, had := r.m[k]
	if !had {
		if len(r.ring) < r.max {
			r.ring = append(r.ring, k)
		} else {
			delete(r.m, r.ring[r.next])
			r.ring[r.next] = k
			r.next = (r.next + 1) % r.max
		}
	}
	r.m[k] = v
	return !had
}

func (r *oldestFirst[K, V]) get(k K) (V, bool) {
	v, ok := r.m[k]
	return v, ok
}

// hashRing is a bounded set of hashes.
type hashRing struct{ oldestFirst[uint64, struct{}] }

func (r *hashRing) add(h uint64) bool { return r.put(h, struct{}{}) }

func (r *hashRing) has(h uint64) bool {
	_, ok := r.m[h]
	return ok
}

// hashOf is 64-bit FNV-1a: stable across runs (the hashes are
// persisted) and allocation-free.
func hashOf[T string | []byte](s T) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Learn remembers secret values (tokens, referenceKeys, sessionIds) so
// they are masked wherever they appear.
func Learn(values ...string) {
	known.Lock()
	defer known.Unlock()
	for _, v := range values {
		if len(v) == opaqueLen {
			known.opaque.add(hashOf(v))
		}
	}
}

// Remember puts persisted masks back in memory (a journal opening).
func Remember(ms []Mask) {
	known.Lock()
	defer known.Unlock()
	for _, m := range ms {
		remember(m)
	}
}

// remember adds m; the caller holds known's lock.
func remember(m Mask) bool {
	switch m.Kind {
	case MaskOpaque:
		return known.opaque.add(m.Hash)
	case MaskSign:
		if m.Len < opaqueLen || m.Len > maxSignLen {
			return false
		}
		if !containsInt(known.signLens, m.Len) {
			known.signLens = append(known.signLens, m.Len)
		}
		return known.signs.add(m.Hash)
	}
	return false
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// learner gathers the values one exchange names before they are added
// under one lock, and says which were new (for the journal to persist).
type learner struct {
	ms    []Mask
	keys  []string   // secKeys, remembered on commit too
	bdata *bdataMemo // nil: decode each BDATA
}

func (l *learner) opaque(v []byte) {
	if len(v) == opaqueLen {
		l.ms = append(l.ms, Mask{Kind: MaskOpaque, Hash: hashOf(v), Len: len(v)})
	}
}

func (l *learner) sign(v []byte) {
	if len(v) >= opaqueLen && len(v) <= maxSignLen {
		l.ms = append(l.ms, Mask{Kind: MaskSign, Hash: hashOf(v), Len: len(v)})
	}
}

// commit remembers what was gathered and appends the new ones to fresh.
func (l *learner) commit(fresh []Mask) []Mask {
	if len(l.keys) > 0 {
		LearnSecKey(l.keys...)
	}
	if len(l.ms) == 0 {
		return fresh
	}
	known.Lock()
	defer known.Unlock()
	for _, m := range l.ms {
		if remember(m) {
			fresh = append(fresh, m)
		}
	}
	return fresh
}

// learnAll learns from body and remembers what it names, appending the
// new masks to fresh; l is empty after.
func (l *learner) learnAll(body []byte, fresh []Mask) []Mask {
	l.learnFrom(body, "")
	fresh = l.commit(fresh)
	l.ms, l.keys = l.ms[:0], l.keys[:0]
	return fresh
}

// Contract field names the learner reads directly.
var (
	signFieldKey = []byte(`"SIGN"`)
	bdataKeyName = []byte(`"BDATA"`)
)

// learnFrom gathers the credentials a request or answer names with the
// contract's own field names: in the JSON, in its BDATA, in a page. It
// scans bytes (no regular expression, no JSON decoding but the BDATA's
// base64): the journal writer runs it for every exchange.
func (l *learner) learnFrom(body []byte, text string) {
	l.fields(body)
	if v, ok := stringField(body, bdataKeyName); ok && len(v) > 0 {
		if raw, ok := l.bdata.decodeBytes(v); ok {
			l.fields(raw)
		}
	}
	if text != "" {
		t := []byte(text)
		l.fields(t)
		for _, m := range secretAttr.FindAllStringSubmatch(text, -1) {
			l.opaque([]byte(m[2]))
		}
		for _, m := range secretQuery.FindAllStringSubmatch(text, -1) {
			l.opaque([]byte(m[2]))
		}
	}
}

func (l *learner) fields(b []byte) {
	if len(b) < opaqueLen {
		return
	}
	eachKey(b, func(key, value []byte) {
		switch string(key) {
		case "referenceKey", "token", "sessionId":
			l.opaque(value)
		case "secKey":
			l.keys = append(l.keys, string(value))
		case "SIGN":
			l.sign(value)
		}
	})
}

// eachKey calls fn with every `"key": "value"` pair of b whose value is
// a string without escapes (credentials have none), at any depth, in one
// pass: each string of b is read once (a pass per field name was 6% of
// the listing's CPU, whose answers are 3 KB).
func eachKey(b []byte, fn func(key, value []byte)) {
	for {
		i := bytes.IndexByte(b, '"')
		if i < 0 {
			return
		}
		b = b[i+1:]
		end := stringEnd(b)
		if end < 0 {
			return
		}
		key := b[:end]
		b = b[end+1:]
		if bytes.IndexByte(key, '\\') >= 0 {
			continue // no credential's field name has an escape
		}
		if v, rest, ok := stringValue(b); ok {
			fn(key, v)
			b = rest
		}
	}
}

// stringEnd is the index of the quote that ends the JSON string b starts
// inside of, skipping escaped quotes; -1 if there is none.
func stringEnd(b []byte) int {
	from := 0
	for {
		i := bytes.IndexByte(b[from:], '"')
		if i < 0 {
			return -1
		}
		i += from
		n := 0
		for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return i
		}
		from = i + 1
	}
}

// eachStringField calls fn with the raw value of every `"name": "..."`
// in b (a string value without escapes; credentials have none).
func eachStringField(b, name []byte, fn func([]byte)) {
	for {
		i := bytes.Index(b, name)
		if i < 0 {
			return
		}
		b = b[i+len(name):]
		if v, rest, ok := stringValue(b); ok {
			fn(v)
			b = rest
		}
	}
}

// stringField is the first value of name in b.
func stringField(b, name []byte) ([]byte, bool) {
	var out []byte
	found := false
	eachStringField(b, name, func(v []byte) {
		if !found {
			out, found = v, true
		}
	})
	return out, found
}

// stringValue reads `: "value"` at the start of b (spaces allowed).
func stringValue(b []byte) (v, rest []byte, ok bool) {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	if i >= len(b) || b[i] != ':' {
		return nil, b, false
	}
	i++
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	if i >= len(b) || b[i] != '"' {
		return nil, b, false
	}
	i++
	end := bytes.IndexByte(b[i:], '"')
	if end < 0 {
		return nil, b, false
	}
	v = b[i : i+end]
	if bytes.IndexByte(v, '\\') >= 0 {
		return nil, b[i+end+1:], false
	}
	return v, b[i+end+1:], true
}

// learnFrom remembers the credentials body and text name (a reader
// learning from an entry it shows).
func learnFrom(body []byte, text string) {
	var l learner
	l.learnFrom(body, text)
	l.commit(nil)
}

// learnSignsIn remembers the SIGN of an envelope body.
func learnSignsIn(body []byte) {
	var l learner
	eachStringField(body, signFieldKey, l.sign)
	l.commit(nil)
}

// MaskKnown replaces every remembered secret in s by with(secret).
func MaskKnown(s string, with func(secret string) string) string {
	return maskSecKeys(maskHashed(s, with), with)
}

// isOpaque is whether c may be part of a token (base64url).
func isOpaque(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// isB64 is whether c may continue a signature form (std base64, escapes).
func isB64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '%'
}

// isSignChar is whether c belongs to a raw signature (std base64).
func isSignChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}

// maskHashed replaces remembered signatures, then remembered tokens, in s.
func maskHashed(s string, with func(secret string) string) string {
	if len(s) < opaqueLen {
		return s
	}
	known.RLock()
	defer known.RUnlock()
	return maskTokens(maskSigns(s, with), with)
}

// maskSigns replaces remembered signatures in s, raw or URL-escaped. One
// is looked for where a run of base64 begins (after a quote, '=', '/',
// ':', a space ...), so the scan costs a hash per candidate, not per
// byte. The caller holds known's read lock.
func maskSigns(s string, with func(secret string) string) string {
	if len(known.signs.m) == 0 {
		return s
	}
	var b strings.Builder
	var buf [maxSignLen]byte
	last := 0
	for i := 0; i < len(s); i++ {
		if i > 0 && isB64(s[i-1]) && i != last {
			continue
		}
		if end, raw, ok := knownSignAt(s, i, buf[:]); ok {
			b.WriteString(s[last:i])
			b.WriteString(with(raw))
			last, i = end, end-1
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// maskTokens replaces remembered tokens in s: whole base64url runs of
// opaqueLen. The caller holds known's read lock.
func maskTokens(s string, with func(secret string) string) string {
	if len(known.opaque.m) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !isOpaque(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isOpaque(s[j]) {
			j++
		}
		if j-i == opaqueLen && known.opaque.has(hashOf(s[i:j])) {
			b.WriteString(s[last:i])
			b.WriteString(with(s[i:j]))
			last = j
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// knownSignAt reports whether a remembered signature starts at s[i],
// raw or with %XX escapes, and where its form ends; buf holds the
// decoded form. The caller holds known's read lock.
func knownSignAt(s string, i int, buf []byte) (end int, raw string, ok bool) {
	if len(known.signs.m) == 0 || !isSignChar(s[i]) {
		return 0, "", false
	}
	for _, n := range known.signLens {
		k, j := 0, i
		for k < n && j < len(s) {
			c := s[j]
			if c == '%' && j+2 < len(s) {
				if d, ok := unhex(s[j+1], s[j+2]); ok {
					c, j = d, j+2
				}
			}
			if !isSignChar(c) {
				break
			}
			buf[k] = c
			k, j = k+1, j+1
		}
		if k == n && known.signs.has(hashOf(buf[:n])) {
			return j, string(buf[:n]), true
		}
	}
	return 0, "", false
}

func unhex(a, b byte) (byte, bool) {
	hi, ok1 := hexVal(a)
	lo, ok2 := hexVal(b)
	return hi<<4 | lo, ok1 && ok2
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
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
