package recording

import (
	"encoding/json"
	"net/url"
	"regexp"
	"sort"
	"strings"
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
	// MaskNone compares the field exactly (to switch a default mask off).
	MaskNone MaskKind = "none"
)

// DefaultMasks are the volatile fields of the contract's answers, matched
// by field name at any depth. A session's masks, and --mask on the command
// line, extend or override them.
var DefaultMasks = map[string]MaskKind{
	// tokens, ids and signatures (an envelope's BDATA is compared decoded)
	"referenceKey": MaskValue, "token": MaskValue, "sessionId": MaskValue, "rewardId": MaskValue,
	"SIGN": MaskValue, "BDATA": MaskValue, "orderId": MaskValue, "coupon_code": MaskValue, "couponCode": MaskValue,
	"referenceId": MaskValue,
	// URLs carrying ids
	"trackLink": MaskValue, "clicktrack": MaskValue, "url": MaskValue, "deepLink": MaskValue, "promoLink": MaskValue,
	// times
	"expireDate": MaskDigits, "createdDateTime": MaskDigits, "purchase_time": MaskDigits,
	"coupon_validity": MaskDigits, "expiredDate": MaskDigits, "endDate": MaskDigits, "time": MaskDigits,
}

// secretFields are replaced by "<masked>" in an exported Expect: they are
// credentials, so the recording file never holds them.
var secretFields = map[string]bool{"referenceKey": true, "token": true, "sessionId": true}

// Masks merges masks over DefaultMasks.
func Masks(extra ...map[string]MaskKind) map[string]MaskKind {
	out := make(map[string]MaskKind, len(DefaultMasks))
	for k, v := range DefaultMasks {
		out[k] = v
	}
	for _, m := range extra {
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

// maskSecrets replaces credential fields in raw JSON by "<masked>".
func maskSecrets(raw json.RawMessage) json.RawMessage {
	v, ok := decode(raw)
	if !ok {
		return raw
	}
	m := map[string]MaskKind{}
	for k := range secretFields {
		m[k] = MaskValue
	}
	out, err := marshal(apply(v, m))
	if err != nil {
		return raw
	}
	return out
}
