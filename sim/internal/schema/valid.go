package schema

// Valid reports what json.Valid does, without its scanner's call per
// byte: the journal's writer checks every request body, its BDATA and an
// envelope answer's before reading their fields, and on a signed call
// those checks were a third of building its entry (issue 25). Like
// json.Valid it accepts any byte from 0x20 up inside a string (no UTF-8
// check) and refuses nesting deeper than 10,000. decodeFast reads the
// same grammar through the same validator.
func Valid(b []byte) bool {
	v := validator{b: b}
	v.space()
	if !v.value(0) {
		return false
	}
	v.space()
	return v.i == len(b)
}

// maxJSONDepth is encoding/json's limit on nesting.
const maxJSONDepth = 10000

// validator reads JSON's grammar over b from i.
type validator struct {
	b []byte
	i int
}

func (v *validator) space() {
	for v.i < len(v.b) {
		switch v.b[v.i] {
		case ' ', '\t', '\n', '\r':
			v.i++
		default:
			return
		}
	}
}

// value reads one value at depth (the number of arrays and objects it
// is inside of).
func (v *validator) value(depth int) bool {
	if v.i >= len(v.b) {
		return false
	}
	switch c := v.b[v.i]; {
	case c == '{':
		return v.object(depth + 1)
	case c == '[':
		return v.array(depth + 1)
	case c == '"':
		return v.string()
	case c == '-' || c >= '0' && c <= '9':
		return v.number()
	case c == 't':
		return v.literal("true")
	case c == 'f':
		return v.literal("false")
	case c == 'n':
		return v.literal("null")
	}
	return false
}

func (v *validator) object(depth int) bool {
	if depth > maxJSONDepth {
		return false
	}
	v.i++ // {
	v.space()
	if v.i < len(v.b) && v.b[v.i] == '}' {
		v.i++
		return true
	}
	for {
		if v.i >= len(v.b) || v.b[v.i] != '"' || !v.string() {
			return false
		}
		v.space()
		if v.i >= len(v.b) || v.b[v.i] != ':' {
			return false
		}
		v.i++
		v.space()
		if !v.value(depth) {
			return false
		}
		if more, ok := v.more('}'); !ok || !more {
			return ok
		}
	}
}

func (v *validator) array(depth int) bool {
	if depth > maxJSONDepth {
		return false
	}
	v.i++ // [
	v.space()
	if v.i < len(v.b) && v.b[v.i] == ']' {
		v.i++
		return true
	}
	for {
		if !v.value(depth) {
			return false
		}
		if more, ok := v.more(']'); !ok || !more {
			return ok
		}
	}
}

// plainInString are the bytes a string holds as they are.
var plainInString = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// more reads what follows an element of an array or object: a comma
// (more is to come) or its closing byte.
func (v *validator) more(closing byte) (more, ok bool) {
	v.space()
	if v.i >= len(v.b) {
		return false, false
	}
	switch v.b[v.i] {
	case ',':
		v.i++
		v.space()
		return true, true
	case closing:
		v.i++
		return false, true
	}
	return false, false
}

// string reads a string from its opening quote.
func (v *validator) string() bool {
	v.i++ // "
	for {
		for v.i < len(v.b) && plainInString[v.b[v.i]] {
			v.i++
		}
		if v.i >= len(v.b) {
			return false
		}
		switch v.b[v.i] {
		case '"':
			v.i++
			return true
		case '\\':
			if !v.escape() {
				return false
			}
		default:
			return false // a control character
		}
	}
}

// escape reads an escape from its backslash.
func (v *validator) escape() bool {
	v.i++
	if v.i >= len(v.b) {
		return false
	}
	switch v.b[v.i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		v.i++
		return true
	case 'u':
		if v.i+4 >= len(v.b) {
			return false
		}
		for _, h := range v.b[v.i+1 : v.i+5] {
			if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
				return false
			}
		}
		v.i += 5
		return true
	}
	return false
}

func (v *validator) number() bool {
	if v.b[v.i] == '-' {
		v.i++
	}
	switch {
	case v.i >= len(v.b):
		return false
	case v.b[v.i] == '0':
		v.i++
	case v.b[v.i] >= '1' && v.b[v.i] <= '9':
		v.digits()
	default:
		return false
	}
	if v.i < len(v.b) && v.b[v.i] == '.' {
		v.i++
		if !v.digits() {
			return false
		}
	}
	if v.i < len(v.b) && (v.b[v.i] == 'e' || v.b[v.i] == 'E') {
		v.i++
		if v.i < len(v.b) && (v.b[v.i] == '+' || v.b[v.i] == '-') {
			v.i++
		}
		if !v.digits() {
			return false
		}
	}
	return true
}

// digits reads one digit or more.
func (v *validator) digits() bool {
	start := v.i
	for v.i < len(v.b) && v.b[v.i] >= '0' && v.b[v.i] <= '9' {
		v.i++
	}
	return v.i > start
}

func (v *validator) literal(word string) bool {
	if len(v.b)-v.i < len(word) || string(v.b[v.i:v.i+len(word)]) != word {
		return false
	}
	v.i += len(word)
	return true
}
