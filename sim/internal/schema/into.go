package schema

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"
)

// Into decodes the document into dst, as json.Unmarshal(p.Raw, dst)
// does, so a request is parsed once for its schema check and its typed
// fields. A flat struct of string, json.Number and json.RawMessage
// fields (every request payload of the signed endpoints, GetReward's,
// fetchCouponCode's, the SDK's) is filled from Value's fields directly
// (a RawMessage from its bytes in Raw); anything else, or any key or
// value encoding/json would read otherwise (a repeated key, a key
// matching a field only case-insensitively, a value of another type), is
// json.Unmarshal, whose errors stay the answers' wording. TestIntoAgrees
// compares both.
func (p Parsed) Into(dst any) error {
	if p.plain && fillFlat(p.Value, p.Raw, dst) {
		return nil
	}
	return json.Unmarshal(p.Raw, dst)
}

// flatStruct is a struct type's plain fields by JSON name.
type flatStruct struct {
	fields map[string]flatField
	raws   bool // some field is a json.RawMessage
}

// flatField is a field's index and how it is filled.
type flatField struct {
	index int
	kind  flatKind
}

type flatKind uint8

const (
	flatString flatKind = iota // a string of the JSON string
	flatNumber                 // a json.Number of the number (or of a string holding one)
	flatRaw                    // a json.RawMessage of the value's bytes
)

var (
	numberType = reflect.TypeFor[json.Number]()
	rawType    = reflect.TypeFor[json.RawMessage]()
)

var flatStructs sync.Map // reflect.Type → *flatStruct (nil: not flat)

func fillFlat(v any, raw []byte, dst any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	p := reflect.ValueOf(dst)
	if p.Kind() != reflect.Pointer || p.IsNil() || p.Elem().Kind() != reflect.Struct {
		return false
	}
	fs := flatOf(p.Elem().Type())
	if fs == nil {
		return false
	}
	// Check every key and value first, so a refusal leaves dst untouched.
	for k, val := range m {
		f, exact := fs.fields[k]
		if !exact {
			if fs.folds(k) {
				return false
			}
			continue
		}
		switch val := val.(type) {
		case nil: // null leaves a string or a number as it is, as in encoding/json
		case string:
			// encoding/json takes a string into a json.Number only when it holds a number.
			if f.kind == flatNumber && !isNumber(val) {
				return false
			}
		case json.Number:
			if f.kind == flatString {
				return false
			}
		default:
			if f.kind != flatRaw {
				return false
			}
		}
	}
	e := p.Elem()
	for k, val := range m {
		f, exact := fs.fields[k]
		if !exact || f.kind == flatRaw {
			continue
		}
		switch val := val.(type) {
		case string:
			e.Field(f.index).SetString(val)
		case json.Number:
			e.Field(f.index).SetString(string(val))
		}
	}
	if fs.raws {
		members(raw, func(key, value []byte) {
			if f, exact := fs.fields[string(key)]; exact && f.kind == flatRaw {
				// A copy, as encoding/json makes: Raw is the caller's.
				e.Field(f.index).SetBytes(append([]byte(nil), value...))
			}
		})
	}
	return true
}

// isNumber reports whether s is one JSON number and nothing else.
func isNumber(s string) bool {
	if s == "" {
		return false
	}
	v := validator{b: []byte(s)}
	return v.number() && v.i == len(v.b)
}

// members calls fn with each member of the object raw holds (a
// document decodeFast read: valid, its keys without escapes), its key
// and its value's bytes.
func members(raw []byte, fn func(key, value []byte)) {
	v := validator{b: raw}
	v.space()
	v.i++ // {
	v.space()
	if v.i < len(v.b) && v.b[v.i] == '}' {
		return
	}
	for {
		v.space()
		keyStart := v.i + 1
		if !v.string() {
			return
		}
		key := raw[keyStart : v.i-1]
		v.space()
		v.i++ // :
		v.space()
		start := v.i
		if !v.value(1) {
			return
		}
		fn(key, raw[start:v.i])
		if more, ok := v.more('}'); !ok || !more {
			return
		}
	}
}

// folds reports whether encoding/json might match key to a field by its
// case-insensitive rule (any non-ASCII key is assumed to).
func (fs *flatStruct) folds(key string) bool {
	for i := 0; i < len(key); i++ {
		if key[i] >= utf8.RuneSelf {
			return true
		}
	}
	for name := range fs.fields {
		if strings.EqualFold(name, key) {
			return true
		}
	}
	return false
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// flatOf is t's flatStruct, or nil when t has anything but string,
// json.Number and json.RawMessage fields with plain JSON names, no two
// alike but for case (an embedded struct, a tag option but omitempty, a
// type that decodes itself).
func flatOf(t reflect.Type) *flatStruct {
	if cached, ok := flatStructs.Load(t); ok {
		return cached.(*flatStruct)
	}
	fs := &flatStruct{fields: map[string]flatField{}}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		fs = nil
	}
	for i := 0; fs != nil && i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			fs = nil
			break
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		kind := flatString
		switch f.Type {
		case numberType:
			kind = flatNumber
		case rawType:
			kind, fs.raws = flatRaw, true
		}
		pt := reflect.PointerTo(f.Type)
		decodesItself := kind == flatString && (pt.Implements(jsonUnmarshaler) || pt.Implements(textUnmarshaler))
		if f.Type.Kind() != reflect.String && kind == flatString || decodesItself ||
			(opts != "" && opts != "omitempty") || !plainName(name) || fs.folds(name) {
			fs = nil
			break
		}
		fs.fields[name] = flatField{index: i, kind: kind}
	}
	flatStructs.Store(t, fs)
	return fs
}

// plainName: letters, digits and underscores, a name encoding/json takes
// as written.
func plainName(name string) bool {
	for _, c := range name {
		if !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return false
		}
	}
	return name != ""
}
