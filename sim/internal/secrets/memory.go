// Package secrets remembers the credentials an exchange named and masks
// them: by value (every token, referenceKey, sessionId, secKey and SIGN
// learnt, wherever it is echoed) and by name (credential headers, fields,
// query parameters). A Memory belongs to one journal: the journal learns
// from the exchanges it writes, the domain tells it the secKeys it knows,
// and every artefact read from that journal masks through it.
package secrets

import (
	"strings"
	"sync"
	"sync/atomic"
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
// hashes it learns, so masking holds across a restart.
//
// A Memory is bounded: the oldest values are forgotten first.

// OpaqueLen is the length of a token.NewOpaque value: 32 random bytes
// in unpadded base64url.
const OpaqueLen = 43

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

// MaxMasks is the most hashes a Memory remembers (the journal keeps as
// many on disk).
const MaxMasks = maxKnown + maxSigns

// Memory is what one journal remembers to mask by value. It is safe for
// concurrent use; a secKey already known is told without a lock (the
// coupon host tells its caller's on every call).
type Memory struct {
	mu     sync.RWMutex
	opaque hashRing
	signs  hashRing
	// signLens are the lengths of the remembered signatures: few (one
	// per key size in use), so a scan tries each at a candidate start.
	signLens []int
	keyMu    sync.Mutex             // writers of keys
	keys     atomic.Pointer[keySet] // replaced whole, never changed
}

// New returns an empty memory.
func New() *Memory {
	m := &Memory{opaque: hashRing{oldestFirst[uint64, struct{}]{max: maxKnown}}, signs: hashRing{oldestFirst[uint64, struct{}]{max: maxSigns}}}
	m.keys.Store(&keySet{keys: oldestFirst[string, struct{}]{max: maxKeys}})
	return m
}

// oldestFirst is a bounded map: putting a new key beyond max forgets the
// oldest. The hashes to mask and the secKeys are each one.
type oldestFirst[K comparable, V any] struct {
	m    map[K]V
	ring []K
	next int
	max  int
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

// get is the value under k.
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

// Remember puts persisted masks back in memory (a journal opening).
func (mem *Memory) Remember(ms []Mask) {
	mem.mu.Lock()
	defer mem.mu.Unlock()
	for _, m := range ms {
		mem.remember(m)
	}
}

// remember adds m; the caller holds mem.mu.
func (mem *Memory) remember(m Mask) bool {
	switch m.Kind {
	case MaskOpaque:
		return mem.opaque.add(m.Hash)
	case MaskSign:
		if m.Len < OpaqueLen || m.Len > maxSignLen {
			return false
		}
		if !containsInt(mem.signLens, m.Len) {
			mem.signLens = append(mem.signLens, m.Len)
		}
		return mem.signs.add(m.Hash)
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

// MaskKnown replaces every remembered secret in s by with(secret).
// A nil memory remembers nothing.
func (mem *Memory) MaskKnown(s string, with func(secret string) string) string {
	if mem == nil {
		return s
	}
	return mem.maskSecKeys(mem.maskHashed(s, with), with)
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
func (mem *Memory) maskHashed(s string, with func(secret string) string) string {
	if len(s) < OpaqueLen {
		return s
	}
	mem.mu.RLock()
	defer mem.mu.RUnlock()
	return mem.maskTokens(mem.maskSigns(s, with), with)
}

// maskSigns replaces remembered signatures in s, raw or URL-escaped. One
// is looked for where a run of base64 begins (after a quote, '=', '/',
// ':', a space ...), so the scan costs a hash per candidate, not per
// byte. The caller holds mem.mu for reading.
func (mem *Memory) maskSigns(s string, with func(secret string) string) string {
	if len(mem.signs.m) == 0 {
		return s
	}
	var b strings.Builder
	var buf [maxSignLen]byte
	last := 0
	for i := 0; i < len(s); i++ {
		if i > 0 && isB64(s[i-1]) && i != last {
			continue
		}
		if end, raw, ok := mem.knownSignAt(s, i, buf[:]); ok {
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
// OpaqueLen. The caller holds mem.mu for reading.
func (mem *Memory) maskTokens(s string, with func(secret string) string) string {
	if len(mem.opaque.m) == 0 {
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
		if j-i == OpaqueLen && mem.opaque.has(hashOf(s[i:j])) {
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
// decoded form. The caller holds mem.mu for reading.
func (mem *Memory) knownSignAt(s string, i int, buf []byte) (end int, raw string, ok bool) {
	if len(mem.signs.m) == 0 || !isSignChar(s[i]) {
		return 0, "", false
	}
	for _, n := range mem.signLens {
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
		if k == n && mem.signs.has(hashOf(buf[:n])) {
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

// MaskKnownBytes is MaskKnown of b with Fingerprint, b itself when
// nothing is masked.
func (mem *Memory) MaskKnownBytes(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	if m := mem.MaskKnown(string(b), Fingerprint); m != string(b) {
		return []byte(m)
	}
	return b
}
