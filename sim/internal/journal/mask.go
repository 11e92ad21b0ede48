package journal

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"
)

// Credentials a body, BDATA, query string or page may carry in clear:
// what an answer hands out (referenceKey, token, sessionId) and a
// channel's coupon credentials (appKey, secKey).
var (
	secretJSON  = regexp.MustCompile(`"(referenceKey|token|sessionId|appKey|secKey)":"((?:[^"\\]|\\.)*)"`)
	secretAttr  = regexp.MustCompile(`(data-(?:session-id|token|reference-key)=")([^"]*)`)
	bdataField  = regexp.MustCompile(`"BDATA":"[^"]*"`)
	signField   = regexp.MustCompile(`"SIGN":"([^"]*)"`)
	secretQuery = regexp.MustCompile(`((?:^|[?&;"'\s])(?:sessionId|token|referenceKey)=)([^&"'\s<>]+)`)
)

// Masked is the entry with every credential in its bodies, BDATA, query
// and text replaced by its Fingerprint, as the journal API shows it. The
// same secret keeps the same fingerprint, so a reader can still follow a
// token from the answer that handed it out to the calls that used it.
func (e Entry) Masked() Entry {
	learnSignsIn(e.Request.Body)
	learnFrom(e.Response.Body, e.Response.Text)
	learnFrom(e.Response.BDATA, "")
	e.Query = MaskKnown(MaskQuery(e.Query, Fingerprint), Fingerprint)
	e.Path = MaskKnown(e.Path, Fingerprint)
	e.Request, e.Response = e.Request.masked(), e.Response.masked()
	return e
}

func (m Message) masked() Message {
	if len(m.Header) > 0 {
		h := make(map[string]string, len(m.Header))
		for k, v := range m.Header {
			h[k] = MaskKnown(v, Fingerprint)
		}
		m.Header = h
	}
	if masked := maskKnownBytes(maskJSON(m.BDATA)); !bytes.Equal(masked, m.BDATA) {
		// The envelope's base64 BDATA carries the same secrets: it is
		// re-encoded from the masked payload (so its SIGN no longer holds).
		m.BDATA = masked
		m.Body = bdataField.ReplaceAll(m.Body, []byte(`"BDATA":"`+base64.StdEncoding.EncodeToString(masked)+`"`))
	}
	m.Body = keepSign(m.Body, maskKnownBytes(maskJSON(m.Body)))
	m.Text = MaskText(m.Text, Fingerprint)
	return m
}

// MaskText replaces every credential in a page or other text (JSON fields,
// query parameters, data- attributes) by with(secret). Recording exports
// use it with a constant, the journal API with Fingerprint.
func MaskText(s string, with func(secret string) string) string {
	if s == "" {
		return s
	}
	if hasSecretField(s) {
		s = secretJSON.ReplaceAllStringFunc(s, func(pair string) string {
			m := secretJSON.FindStringSubmatch(pair)
			return `"` + m[1] + `":"` + with(m[2]) + `"`
		})
	}
	s = MaskKnown(MaskQuery(s, with), with)
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

// maskJSON masks compact JSON (as the journal keeps it: no space after a
// colon, so the pattern sees every field).
func maskJSON(b json.RawMessage) json.RawMessage {
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

// keepSign puts the envelope's own SIGN back into a masked body: a
// signature is masked where it is echoed, not where it signs.
func keepSign(orig, masked json.RawMessage) json.RawMessage {
	o := signField.Find(orig)
	if o == nil || bytes.Equal(orig, masked) {
		return masked
	}
	done := false
	return signField.ReplaceAllFunc(masked, func(b []byte) []byte {
		if done {
			return b
		}
		done = true
		return o
	})
}
