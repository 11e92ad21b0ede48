package secrets

import (
	"sort"
	"strings"
)

// Masking by value, secKeys (issue 23): a channel's secKey is told by
// whoever knows it (a scenario's channels, a channel registered at run
// time, a coupon call whose secKey matched), so a run-time channel's
// secKey is masked again after a restart from its start on. Unlike a
// token, a secKey is the publisher's own choice and may be short: one
// of at least minKeyLen characters is masked wherever it appears; a
// shorter one only where it stands alone (between non-alphanumeric
// characters: a JSON string, a header value, a query value, a path
// segment), so "ab" does not mask every "ab" in a page.

// minKeyLen is the shortest secKey masked inside other text.
const minKeyLen = 4

// maxKeys bounds the remembered secKeys; the oldest go first.
const maxKeys = 1 << 12

// keySet is the remembered secKeys as one value: a writer builds a new
// one and swaps it in, so a reader needs no lock.
type keySet struct {
	keys  oldestFirst[string, struct{}]
	order []string // longest first, so a key inside another masks last
}

// LearnSecKey remembers channels' secKeys so they are masked wherever
// they appear. Every coupon call that proves its secKey tells it again:
// one already known costs a map lookup, no lock.
func (mem *Memory) LearnSecKey(values ...string) {
	if mem.keys.Load().hasAll(values) {
		return
	}
	mem.keyMu.Lock()
	defer mem.keyMu.Unlock()
	old := mem.keys.Load()
	next := &keySet{keys: old.keys.clone()}
	changed := false
	for _, v := range values {
		if v != "" && next.keys.put(v, struct{}{}) {
			changed = true
		}
	}
	if !changed {
		return
	}
	next.order = make([]string, 0, len(next.keys.m))
	for k := range next.keys.m {
		next.order = append(next.order, k)
	}
	sort.Slice(next.order, func(i, j int) bool {
		a, b := next.order[i], next.order[j]
		return len(a) > len(b) || len(a) == len(b) && a < b
	})
	mem.keys.Store(next)
}

// hasAll reports whether every value is remembered already (or empty).
func (ks *keySet) hasAll(values []string) bool {
	for _, v := range values {
		if _, ok := ks.keys.get(v); v != "" && !ok {
			return false
		}
	}
	return true
}

// clone copies r (a new secKey is rare: a channel added, a scenario loaded).
func (r *oldestFirst[K, V]) clone() oldestFirst[K, V] {
	c := oldestFirst[K, V]{m: make(map[K]V, len(r.m)+1), ring: append(make([]K, 0, len(r.ring)+1), r.ring...), next: r.next, max: r.max}
	for k, v := range r.m {
		c.m[k] = v
	}
	return c
}

// maskSecKeys replaces remembered secKeys in s by with(key).
func (mem *Memory) maskSecKeys(s string, with func(secret string) string) string {
	for _, k := range mem.keys.Load().order {
		if !strings.Contains(s, k) {
			continue
		}
		if len(k) >= minKeyLen {
			s = strings.ReplaceAll(s, k, with(k))
			continue
		}
		s = replaceAlone(s, k, with(k))
	}
	return s
}

// replaceAlone replaces k where it stands alone: neither neighbour is a
// letter or digit.
func replaceAlone(s, k, by string) string {
	var b strings.Builder
	last := 0
	for i := 0; ; {
		j := strings.Index(s[i:], k)
		if j < 0 {
			break
		}
		at, end := i+j, i+j+len(k)
		if (at == 0 || !isAlnum(s[at-1])) && (end == len(s) || !isAlnum(s[end])) {
			b.WriteString(s[last:at])
			b.WriteString(by)
			last = end
		}
		i = at + 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isAlnum(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}
