package secrets

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
)

// Credentials a body, BDATA, query string or page may carry in clear:
// what an answer hands out (referenceKey, token, sessionId) and a
// channel's coupon credentials (appKey, secKey).
var (
	secretJSON  = regexp.MustCompile(`"(referenceKey|token|sessionId|appKey|secKey)":"((?:[^"\\]|\\.)*)"`)
	secretAttr  = regexp.MustCompile(`(data-(?:session-id|token|reference-key)=")([^"]*)`)
	secretQuery = regexp.MustCompile(`((?:^|[?&;"'\s])(?:sessionId|token|referenceKey)=)([^&"'\s<>]+)`)
)

// MaskText replaces every credential in a page or other text (JSON fields,
// query parameters, data- attributes, and every value mem remembers) by
// with(secret). Recording exports use it with a constant, the journal API
// with Fingerprint.
func (mem *Memory) MaskText(s string, with func(secret string) string) string {
	return mem.MaskKnown(maskNamed(s, with), with)
}

// maskNamed replaces the credentials text names (JSON fields, query
// parameters, data- attributes) by with(secret): what can be masked
// without a memory of values.
func maskNamed(s string, with func(secret string) string) string {
	if s == "" {
		return s
	}
	if hasSecretField(s) {
		s = secretJSON.ReplaceAllStringFunc(s, func(pair string) string {
			m := secretJSON.FindStringSubmatch(pair)
			return `"` + m[1] + `":"` + with(m[2]) + `"`
		})
	}
	s = MaskQuery(s, with)
	if !strings.Contains(s, "data-") {
		return s
	}
	return secretAttr.ReplaceAllStringFunc(s, func(kv string) string {
		p := secretAttr.FindStringSubmatch(kv)
		return p[1] + with(p[2])
	})
}

// hasSecretField is a cheap test before secretJSON's regular expression.
func hasSecretField[T string | []byte](s T) bool {
	for _, f := range []string{`"referenceKey"`, `"token"`, `"sessionId"`, `"appKey"`, `"secKey"`} {
		if strings.Contains(string(s), f) {
			return true
		}
	}
	return false
}

// MaskJSON masks the credential fields of compact JSON (as the journal
// keeps it: no space after a colon, so the pattern sees every field) by
// their Fingerprint.
func MaskJSON(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || !hasSecretField([]byte(b)) {
		return b
	}
	return json.RawMessage(secretJSON.ReplaceAllFunc(b, func(pair []byte) []byte { return []byte(maskPair(string(pair))) }))
}

func maskPair(pair string) string {
	m := secretJSON.FindStringSubmatch(pair)
	return `"` + m[1] + `":"` + Fingerprint(m[2]) + `"`
}

// MaskQuery replaces the value of every sessionId, token and
// referenceKey parameter of a query string (or of text holding URLs) by
// with(value), the value as it appears (still URL-encoded).
func MaskQuery(s string, with func(value string) string) string {
	// The regular expression costs milliseconds on a 64 KiB page; most
	// text names none of the parameters.
	if !strings.Contains(s, "sessionId=") && !strings.Contains(s, "token=") && !strings.Contains(s, "referenceKey=") {
		return s
	}
	return secretQuery.ReplaceAllStringFunc(s, func(kv string) string {
		m := secretQuery.FindStringSubmatch(kv)
		return m[1] + with(m[2])
	})
}

// Fingerprint is how a secret appears in the journal: "~fp:" and the first
// 16 hex digits of its SHA-256. The same secret always has the same
// fingerprint, so a session can tell that a header carries the token an
// earlier answer handed out, without the journal holding the token.
func Fingerprint(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return "~fp:" + hex.EncodeToString(sum[:8])
}

// secretHeader reports whether a header's value is a credential. It
// runs for every header of every exchange in the journal's writer, so it
// lowers the name into a buffer on the stack rather than a new string.
func secretHeader(name string) bool {
	var buf [64]byte
	if len(name) > len(buf) {
		return secretLower(strings.ToLower(name))
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return secretLower(string(buf[:len(name)]))
}

func secretLower(n string) bool {
	switch n {
	case "authorization", "proxy-authorization", "cookie", "set-cookie":
		return true
	}
	return strings.Contains(n, "key") || strings.Contains(n, "secret") || strings.Contains(n, "token") || strings.Contains(n, "password")
}

// MaskValue masks one credential header value: the scheme word is kept
// ("Bearer", "ServiceAppKey") and the credential becomes its fingerprint.
func MaskValue(v string) string {
	if scheme, cred, ok := strings.Cut(v, " "); ok && cred != "" && !strings.Contains(scheme, ":") {
		return scheme + " " + Fingerprint(strings.TrimSpace(cred))
	}
	return Fingerprint(v)
}

// MaskHeader flattens h (values joined by ", ") with secrets masked.
func MaskHeader(h http.Header) map[string]string {
	if len(h) == 0 {
		return nil
	}
	out := make(map[string]string, len(h))
	for k, vs := range h {
		v := strings.Join(vs, ", ")
		if secretHeader(k) {
			v = MaskValue(v)
		}
		out[http.CanonicalHeaderKey(k)] = v
	}
	return out
}

// HeaderMemo remembers the masked form of the last secret header values
// (MaskValue hashes each: a SHA-256 and two strings per call, and a
// client sends the same bearer token call after call), and what it read
// of the header names it met. It is bounded and belongs to one goroutine
// (the journal's writer).
type HeaderMemo struct {
	m     oldestFirst[string, string]
	names map[string]HeaderName
}

// HeaderName is what masking reads of a header's name: a dozen names
// each lower-cased and searched four times, and made canonical, were half
// of masking an exchange's headers (issue 25).
type HeaderName struct {
	Secret    bool
	Canonical string
}

// maxMemoNames bounds the names remembered: a client that sends new
// names call after call fills it once, and further names are read each
// time.
const maxMemoNames = 512

// NewHeaderMemo returns an empty memo.
func NewHeaderMemo() *HeaderMemo {
	return &HeaderMemo{m: oldestFirst[string, string]{max: maxMaskMemo}}
}

// maxMaskMemo bounds the masked header values remembered (at most
// maxMemoValue bytes each, and its fingerprint).
const maxMaskMemo = 256

// Name is what masking reads of header name k.
func (m *HeaderMemo) Name(k string) HeaderName {
	if m != nil {
		if n, ok := m.names[k]; ok {
			return n
		}
	}
	n := HeaderName{Secret: secretHeader(k), Canonical: http.CanonicalHeaderKey(k)}
	if m != nil && len(m.names) < maxMemoNames {
		if m.names == nil {
			m.names = make(map[string]HeaderName)
		}
		m.names[k] = n
	}
	return n
}

// maxMemoValue is the longest value the memo keeps.
const maxMemoValue = 512

// Mask is MaskValue(v), remembered.
func (m *HeaderMemo) Mask(v string) string {
	if m == nil || len(v) > maxMemoValue {
		return MaskValue(v)
	}
	if out, ok := m.m.get(v); ok {
		return out
	}
	out := MaskValue(v)
	m.m.put(v, out)
	return out
}
