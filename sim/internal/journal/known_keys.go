package journal

import (
	"sort"
	"strings"
	"sync"
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

var secKeys = struct {
	sync.RWMutex
	keys  oldestFirst[string, struct{}]
	order []string // longest first, so a key inside another masks last
}{keys: oldestFirst[string, struct{}]{max: maxKeys}}

// LearnSecKey remembers channels' secKeys so they are masked wherever
// they appear. Every coupon call that proves its secKey tells it again:
// one already known costs a read lock, not the write lock every
// fetchCouponCode took.
func LearnSecKey(values ...string) {
	if allKnown(values) {
		return
	}
	secKeys.Lock()
	defer secKeys.Unlock()
	changed := false
	for _, v := range values {
		if v != "" && secKeys.keys.put(v, struct{}{}) {
			changed = true
		}
	}
	if changed {
		order := make([]string, 0, len(secKeys.keys.m))
		for k := range secKeys.keys.m {
			order = append(order, k)
		}
		sort.Slice(order, func(i, j int) bool {
			return len(order[i]) > len(order[j]) || len(order[i]) == len(order[j]) && order[i] < order[j]
		})
		secKeys.order = order
	}
}

// allKnown reports whether every value is remembered already (or empty).
func allKnown(values []string) bool {
	secKeys.RLock()
	defer secKeys.RUnlock()
	for _, v := range values {
		if _, ok := secKeys.keys.get(v); v != "" && !ok {
			return false
		}
	}
	return true
}

// maskSecKeys replaces remembered secKeys in s by with(key).
func maskSecKeys(s string, with func(secret string) string) string {
	secKeys.RLock()
	defer secKeys.RUnlock()
	for _, k := range secKeys.order {
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
