package schema

import (
	"encoding/json"
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
	d := fastDecoder{buf: raw}
	v, ok = d.value(0)
	if !ok {
		return nil, false
	}
	d.space()
	return v, d.pos == len(d.buf)
}

type fastDecoder struct {
	buf []byte
	pos int
}

// maxFastDepth bounds the recursion; deeper documents take the slow path.
const maxFastDepth = 64

func (d *fastDecoder) space() {
	for d.pos < len(d.buf) {
		switch d.buf[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *fastDecoder) value(depth int) (any, bool) {
	d.space()
	if d.pos >= len(d.buf) || depth > maxFastDepth {
		return nil, false
	}
	switch c := d.buf[d.pos]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	}
	for _, lit := range [...]struct {
		text string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if len(d.buf)-d.pos >= len(lit.text) && string(d.buf[d.pos:d.pos+len(lit.text)]) == lit.text {
			d.pos += len(lit.text)
			return lit.v, true
		}
	}
	return nil, false
}

func (d *fastDecoder) object(depth int) (any, bool) {
	d.pos++ // {
	m := map[string]any{}
	d.space()
	if d.pos < len(d.buf) && d.buf[d.pos] == '}' {
		d.pos++
		return m, true
	}
	for {
		d.space()
		if d.pos >= len(d.buf) || d.buf[d.pos] != '"' {
			return nil, false
		}
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		d.space()
		if d.pos >= len(d.buf) || d.buf[d.pos] != ':' {
			return nil, false
		}
		d.pos++
		v, ok := d.value(depth + 1)
		if !ok {
			return nil, false
		}
		if _, dup := m[k.(string)]; dup {
			return nil, false // json.Unmarshal into a struct reads both
		}
		m[k.(string)] = v
		if done, ok := d.next('}'); !ok || done {
			return m, ok
		}
	}
}

func (d *fastDecoder) array(depth int) (any, bool) {
	d.pos++ // [
	a := []any{}
	d.space()
	if d.pos < len(d.buf) && d.buf[d.pos] == ']' {
		d.pos++
		return a, true
	}
	for {
		v, ok := d.value(depth + 1)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		if done, ok := d.next(']'); !ok || done {
			return a, ok
		}
	}
}

// next reads the comma between members, or the container's end.
func (d *fastDecoder) next(end byte) (done, ok bool) {
	d.space()
	if d.pos >= len(d.buf) {
		return false, false
	}
	switch d.buf[d.pos] {
	case ',':
		d.pos++
		return false, true
	case end:
		d.pos++
		return true, true
	}
	return false, false
}

// str reads a string without escapes whose bytes are valid UTF-8 with no
// control character: encoding/json keeps those bytes as they are.
func (d *fastDecoder) str() (any, bool) {
	start := d.pos + 1
	ascii := true
	for i := start; i < len(d.buf); i++ {
		switch c := d.buf[i]; {
		case c == '"':
			s := d.buf[start:i]
			if !ascii && !utf8.Valid(s) {
				return nil, false
			}
			d.pos = i + 1
			return string(s), true
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// number reads JSON's number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *fastDecoder) number() (any, bool) {
	b, i := d.buf, d.pos
	digits := func() bool {
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > s
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return nil, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return nil, false
		}
	}
	n := json.Number(b[d.pos:i])
	d.pos = i
	return n, true
}
