package recfile

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

// MaskKind says how a volatile field is compared.
type MaskKind string

const (
	// MaskValue compares only presence (and, for arrays, length).
	MaskValue MaskKind = "value"
	// MaskDigits replaces every digit by 9, so a timestamp compares by its
	// format and not by its value.
	MaskDigits MaskKind = "digits"
	// MaskIgnore drops the field from both sides.
	MaskIgnore MaskKind = "ignore"
	// MaskURL compares a URL by its path and query with every run of
	// digits made one 9, whatever its scheme and host.
	MaskURL MaskKind = "url"
	// MaskNone compares the field exactly (to switch a default mask off).
	MaskNone MaskKind = "none"
)

// ParseMaskKind checks a mask kind given on the command line or in a
// recording file.
func ParseMaskKind(s string) (MaskKind, error) {
	switch k := MaskKind(s); k {
	case MaskValue, MaskDigits, MaskURL, MaskIgnore, MaskNone:
		return k, nil
	}
	return "", fmt.Errorf("mask kind %q: want value, digits, url, ignore or none", s)
}

// secretFields are replaced by "<masked>" in an exported Expect: they are
// credentials, so the recording file never holds them.
var secretFields = map[string]bool{"referenceKey": true, "token": true, "sessionId": true}

// Masks merges mask sets, later ones over earlier ones: the volatile
// fields the schemas name (VolatileFields), then a recording's, then a
// run's.
func Masks(sets ...map[string]MaskKind) map[string]MaskKind {
	out := map[string]MaskKind{}
	for _, m := range sets {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// MaskList renders masks for documentation and messages.
func MaskList(m map[string]MaskKind) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, k+"="+string(v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

const masked = "<masked>"

// MaskedQueryValue stands for a credential in a query string or form, URL-encoded.
const MaskedQueryValue = "%3Cmasked%3E"

// MaskText replaces every credential in a page (sessionId links and
// data- attributes, JSON fields, and what mem remembers; nil: none) by
// "<masked>": an exported page holds none, and a replayed page is
// compared masked the same way.
func MaskText(s string, mem *secrets.Memory) string {
	return mem.MaskText(s, func(string) string { return masked })
}

// MaskEchoes masks, by value, a credential the simulator issued that
// the request echoes where no capture names it (?access_token=, a
// header, a field at any depth, additionalParams): the masking by value
// every artefact reads through (the journal's memory, issue 42).
func (st *Step) MaskEchoes(mem *secrets.Memory) {
	st.Path = mem.MaskKnown(st.Path, func(string) string { return MaskedQueryValue })
	st.Query = mem.MaskKnown(st.Query, func(string) string { return MaskedQueryValue })
	echo := func(s string) string { return mem.MaskKnown(s, func(string) string { return masked }) }
	echoJSON := func(raw json.RawMessage) json.RawMessage {
		if len(raw) == 0 {
			return raw
		}
		return json.RawMessage(echo(string(raw)))
	}
	for k, v := range st.Header {
		st.Header[k] = echo(v)
	}
	st.Text = echo(st.Text)
	st.Body = echoJSON(st.Body)
	if st.Envelope != nil {
		st.Envelope.Payload = echoJSON(st.Envelope.Payload)
	}
	st.Expect.Text = echo(st.Expect.Text)
	st.Expect.Body, st.Expect.BDATA = echoJSON(st.Expect.Body), echoJSON(st.Expect.BDATA)
}

// apply masks a decoded JSON value (a copy is returned).
func apply(v any, masks map[string]MaskKind) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, c := range x {
			switch masks[k] {
			case MaskIgnore:
				continue
			case MaskValue:
				out[k] = maskValue(c)
			case MaskDigits:
				out[k] = maskDigits(c)
			case MaskURL:
				out[k] = maskURL(c)
			case MaskNone:
				out[k] = c
			default:
				out[k] = apply(c, masks)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, c := range x {
			out[i] = apply(c, masks)
		}
		return out
	case string:
		return normaliseURL(x)
	}
	return v
}

// normaliseURL makes an absolute http(s) URL comparable across servers:
// the scheme and host (a recording and its replay run on different
// addresses) are dropped and every run of digits in path and query (ids
// of any length) becomes one 9.
// Other strings are returned as they are.
func normaliseURL(s string) any {
	if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return s
	}
	rest := u.EscapedPath()
	if u.RawQuery != "" {
		rest += "?" + u.RawQuery
	}
	return "<url>" + digitRuns.ReplaceAllString(rest, "9")
}

var digitRuns = regexp.MustCompile(`[0-9]+`)

// maskURL normalises a URL of any scheme (a deepLink's rewardsim://, a
// relative image path) as normaliseURL does an http(s) one; arrays are
// masked element by element.
func maskURL(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, c := range x {
			out[i] = maskURL(c)
		}
		return out
	case string:
		if x == "" || strings.HasPrefix(x, "<url>") {
			return x // empty, or normalised already (a recorded answer)
		}
		u, err := url.Parse(x)
		if err != nil {
			return digitRuns.ReplaceAllString(x, "9")
		}
		rest := u.EscapedPath()
		if u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https" {
			rest = u.Scheme + "://" + u.Host + rest // the app scheme is part of the answer
		}
		if u.RawQuery != "" {
			rest += "?" + u.RawQuery
		}
		return "<url>" + digitRuns.ReplaceAllString(rest, "9")
	}
	return v
}

func maskValue(v any) any {
	if arr, ok := v.([]any); ok {
		out := make([]any, len(arr))
		for i, c := range arr {
			out[i] = maskValue(c)
		}
		return out
	}
	if v == nil {
		return nil
	}
	return masked
}

func maskDigits(v any) any {
	switch x := v.(type) {
	case string:
		return strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return '9'
			}
			return r
		}, x)
	case json.Number:
		return maskDigits(string(x))
	case []any:
		out := make([]any, len(x))
		for i, c := range x {
			out[i] = maskDigits(c)
		}
		return out
	}
	return v
}

// MaskSecrets replaces credential fields in raw JSON by "<masked>".
func MaskSecrets(raw json.RawMessage) json.RawMessage {
	v, ok := Decode(raw)
	if !ok {
		return raw
	}
	m := map[string]MaskKind{}
	for k := range secretFields {
		m[k] = MaskValue
	}
	out, err := MarshalValue(apply(v, m))
	if err != nil {
		return raw
	}
	return out
}
