package schema

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// decodeFast decodes the JSON every well-formed request carries, into
// the same values DecodeJSON's json.Decoder makes (map[string]any,
// []any, string, json.Number, bool, nil), in one pass with no reflection:
// on a signed call this decode was the largest share of the envelope's
// handling after the RSA operations. It answers ok=false for anything it
// does not decode exactly as encoding/json would (a string with an
// escape or invalid UTF-8, a repeated key, a deep nesting, any syntax
// error, anything after the value but spaces), and DecodeJSON then asks encoding/json,
// whose errors stay the answers' wording. TestDecodeFastAgrees compares
// both on generated inputs.
func decodeFast(raw []byte) (v any, ok bool) {
	d := fastDecoder{validator: validator{b: raw}, s: string(raw)}
	v, ok = d.value(0)
	if !ok {
		return nil, false
	}
	d.space()
	return v, d.i == len(d.b)
}

// fastDecoder builds values over the validator's reading of the grammar
// (Valid): spaces, separators, numbers and literals are read by the same
// code in both. Its objects' keys are slices of s, one copy of the
// document, rather than a copy each (most of a request's allocations in
// decoding it); values are copied one by one, so a string a caller keeps
// for long never holds the whole document.
type fastDecoder struct {
	validator
	s string // string(b)
}

// maxFastDepth bounds the recursion; deeper documents take the slow path.
const maxFastDepth = 64

func (d *fastDecoder) value(depth int) (any, bool) {
	d.space()
	if d.i >= len(d.b) || depth > maxFastDepth {
		return nil, false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		if s, ok := d.str(); ok {
			return strings.Clone(s), true
		}
		return nil, false
	case c == '-' || (c >= '0' && c <= '9'):
		start := d.i
		if !d.number() {
			return nil, false
		}
		return json.Number(d.b[start:d.i]), true
	}
	for _, lit := range [...]struct {
		text string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if d.literal(lit.text) {
			return lit.v, true
		}
	}
	return nil, false
}

func (d *fastDecoder) object(depth int) (any, bool) {
	d.i++ // {
	m := map[string]any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, true
	}
	for {
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, false
		}
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, false
		}
		d.i++
		v, ok := d.value(depth + 1)
		if !ok {
			return nil, false
		}
		if _, dup := m[k]; dup {
			return nil, false // json.Unmarshal into a struct reads both
		}
		m[k] = v
		if more, ok := d.more('}'); !ok || !more {
			return m, ok
		}
	}
}

func (d *fastDecoder) array(depth int) (any, bool) {
	d.i++ // [
	a := []any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return a, true
	}
	for {
		v, ok := d.value(depth + 1)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		if more, ok := d.more(']'); !ok || !more {
			return a, ok
		}
	}
}

// str reads a string without escapes whose bytes are valid UTF-8 with no
// control character (encoding/json keeps those bytes as they are), as a
// slice of s.
func (d *fastDecoder) str() (string, bool) {
	start := d.i + 1
	ascii := true
	for i := start; i < len(d.b); i++ {
		switch c := d.b[i]; {
		case c == '"':
			if !ascii && !utf8.Valid(d.b[start:i]) {
				return "", false
			}
			d.i = i + 1
			return d.s[start:i], true
		case c == '\\' || c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}
