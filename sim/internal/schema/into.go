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
// fields. A flat struct of string fields (every request payload of the
// signed endpoints) is filled from Value's fields directly; anything
// else, or any key or value encoding/json would read otherwise (a
// repeated key, a key matching a field only case-insensitively, a value
// that is not a string), is json.Unmarshal, whose errors stay the
// answers' wording. TestIntoAgrees compares both.
func (p Parsed) Into(dst any) error {
	if p.plain && fillFlat(p.Value, dst) {
		return nil
	}
	return json.Unmarshal(p.Raw, dst)
}

// flatStruct is a struct type's string fields by JSON name.
type flatStruct struct {
	fields map[string]int
}

var flatStructs sync.Map // reflect.Type → *flatStruct (nil: not flat)

func fillFlat(v any, dst any) bool {
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
		if _, exact := fs.fields[k]; exact {
			switch val.(type) {
			case string, nil: // null leaves a string as it is, as in encoding/json
			default:
				return false
			}
		} else if fs.folds(k) {
			return false
		}
	}
	e := p.Elem()
	for k, val := range m {
		if s, isString := val.(string); isString {
			if i, exact := fs.fields[k]; exact {
				e.Field(i).SetString(s)
			}
		}
	}
	return true
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

// flatOf is t's flatStruct, or nil when t has anything but plain string
// fields with plain JSON names (an embedded struct, a tag option but
// omitempty, a type that decodes itself).
func flatOf(t reflect.Type) *flatStruct {
	if cached, ok := flatStructs.Load(t); ok {
		return cached.(*flatStruct)
	}
	fs := &flatStruct{fields: map[string]int{}}
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
		_, dup := fs.fields[name]
		pt := reflect.PointerTo(f.Type)
		if f.Type.Kind() != reflect.String || (opts != "" && opts != "omitempty") || !plainName(name) ||
			pt.Implements(jsonUnmarshaler) || pt.Implements(textUnmarshaler) || dup {
			fs = nil
			break
		}
		fs.fields[name] = i
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
