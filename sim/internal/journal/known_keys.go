package journal

import (
	"net/url"
	"sort"
	"strings"
	"sync"
)

// Masking by value, the rest (issue 23): a channel's secKey and an
// envelope's SIGN are credentials too. secKeys are told by whoever knows
// them (a scenario's channels, a channel registered at run time, a
// coupon call whose secKey matched), so a run-time channel's secKey is
// masked again after a restart from its first matching call on. SIGN
// values are learnt from the envelopes the journal reads, raw and in
// their URL-escaped forms, so an echo in a query, header, path or JSON
// field of any name is masked; the envelope's own SIGN field is left as
// it is (it is what a reader verifies).

// minKeyLen keeps a trivially short secKey from masking common text.
const minKeyLen = 4

// maxKeys and maxSigns bound what is remembered; the oldest go first.
const (
	maxKeys  = 1 << 12
	maxSigns = 1 << 16
)

// signPrefix is how much of a signature form indexes it.
const signPrefix = 16

var secrets = struct {
	sync.RWMutex
	keys     map[string]struct{}
	keyOrder []string // longest first, so a key inside another masks last
	keyRing  oldestFirst
	// signs maps a signature form (raw, query-escaped, path-escaped) to
	// the raw signature; byPrefix indexes the forms by their first bytes.
	signs    map[string]string
	byPrefix map[string][]string
	signRing oldestFirst
}{keys: map[string]struct{}{}, keyRing: oldestFirst{max: maxKeys},
	signs: map[string]string{}, byPrefix: map[string][]string{}, signRing: oldestFirst{max: maxSigns}}

// LearnSecKey remembers channels' secKeys so they are masked wherever
// they appear.
func LearnSecKey(values ...string) {
	secrets.Lock()
	defer secrets.Unlock()
	changed := false
	for _, v := range values {
		if len(v) < minKeyLen {
			continue
		}
		if _, ok := secrets.keys[v]; ok {
			continue
		}
		if old, ok := secrets.keyRing.add(v); ok {
			delete(secrets.keys, old)
		}
		secrets.keys[v] = struct{}{}
		changed = true
	}
	if changed {
		order := make([]string, 0, len(secrets.keys))
		for k := range secrets.keys {
			order = append(order, k)
		}
		sort.Slice(order, func(i, j int) bool {
			return len(order[i]) > len(order[j]) || len(order[i]) == len(order[j]) && order[i] < order[j]
		})
		secrets.keyOrder = order
	}
}

// learnSigns remembers envelope signatures.
func learnSigns(values ...string) {
	secrets.Lock()
	defer secrets.Unlock()
	for _, v := range values {
		if len(v) < opaqueLen {
			continue
		}
		if _, ok := secrets.signs[v]; ok {
			continue
		}
		if old, ok := secrets.signRing.add(v); ok {
			forgetSign(old)
		}
		for _, f := range signForms(v) {
			if _, ok := secrets.signs[f]; ok {
				continue
			}
			secrets.signs[f] = v
			p := f[:signPrefix]
			secrets.byPrefix[p] = append(secrets.byPrefix[p], f)
		}
	}
}

func forgetSign(v string) {
	for _, f := range signForms(v) {
		delete(secrets.signs, f)
		p := f[:signPrefix]
		fs := secrets.byPrefix[p]
		for i, g := range fs {
			if g == f {
				fs = append(fs[:i], fs[i+1:]...)
				break
			}
		}
		if len(fs) == 0 {
			delete(secrets.byPrefix, p)
		} else {
			secrets.byPrefix[p] = fs
		}
	}
}

func signForms(v string) []string {
	forms := []string{v}
	for _, f := range []string{url.QueryEscape(v), url.PathEscape(v)} {
		if f != forms[0] && (len(forms) == 1 || f != forms[1]) {
			forms = append(forms, f)
		}
	}
	return forms
}

// isB64 is whether c may continue a signature form (std base64, escapes).
func isB64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '%'
}

// maskSecrets replaces remembered secKeys and signatures in s by
// with(secret). A signature is looked for where a run of base64 begins
// (after a quote, '=', '/', ':', a space ...), so the scan costs one
// map lookup per delimiter, not per byte.
func maskSecrets(s string, with func(secret string) string) string {
	secrets.RLock()
	defer secrets.RUnlock()
	if len(secrets.byPrefix) > 0 && len(s) >= opaqueLen {
		var b strings.Builder
		last := 0
		for i := 0; i+signPrefix <= len(s); i++ {
			if i > 0 && isB64(s[i-1]) && i != last {
				continue
			}
			fs, ok := secrets.byPrefix[s[i:i+signPrefix]]
			if !ok {
				continue
			}
			for _, f := range fs {
				if strings.HasPrefix(s[i:], f) {
					b.WriteString(s[last:i])
					b.WriteString(with(secrets.signs[f]))
					last = i + len(f)
					i = last - 1
					break
				}
			}
		}
		if last > 0 {
			b.WriteString(s[last:])
			s = b.String()
		}
	}
	for _, k := range secrets.keyOrder {
		if strings.Contains(s, k) {
			s = strings.ReplaceAll(s, k, with(k))
		}
	}
	return s
}
