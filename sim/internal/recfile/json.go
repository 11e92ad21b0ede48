package recfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// MaskEnvelope keeps an answer envelope's CHANNELID and masks SIGN and
// BDATA (compared decoded, through Expect.BDATA).
func MaskEnvelope(raw json.RawMessage) json.RawMessage {
	v, ok := Decode(raw)
	m, isObj := v.(map[string]any)
	if !ok || !isObj {
		return raw
	}
	for _, k := range []string{"SIGN", "BDATA"} {
		if _, ok := m[k]; ok {
			m[k] = masked
		}
	}
	out, err := MarshalValue(m)
	if err != nil {
		return raw
	}
	return out
}

// Decode reads JSON keeping numbers as written.
func Decode(raw json.RawMessage) (any, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}

func MarshalValue(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Leaves calls fn for every scalar leaf with its JSON Pointer and key.
func Leaves(v any, ptr string, fn func(ptr, key string, val any)) {
	switch x := v.(type) {
	case map[string]any:
		// In key order: which of two fields holding one value a later
		// step captures must not depend on map order.
		for _, k := range slices.Sorted(maps.Keys(x)) {
			c := x[k]
			p := ptr + "/" + escape(k)
			switch c.(type) {
			case map[string]any, []any:
				Leaves(c, p, fn)
			default:
				fn(p, k, c)
			}
		}
	case []any:
		for i, c := range x {
			p := fmt.Sprintf("%s/%d", ptr, i)
			switch c.(type) {
			case map[string]any, []any:
				Leaves(c, p, fn)
			default:
				key := ptr[strings.LastIndex(ptr, "/")+1:]
				fn(p, key, c)
			}
		}
	}
}

// RewriteStrings rewrites the string Leaves of raw JSON through fn; raw
// comes back as it was when fn changes nothing (or it is not JSON).
func RewriteStrings(raw json.RawMessage, fn func(key, val string) (string, bool)) json.RawMessage {
	v, ok := Decode(raw)
	if !ok {
		return raw
	}
	changed := false
	v = walkStrings(v, "", func(key, val string) (string, bool) {
		out, ok := fn(key, val)
		changed = changed || ok
		return out, ok
	})
	if !changed {
		return raw
	}
	out, err := MarshalValue(v)
	if err != nil {
		return raw
	}
	return out
}

// walkStrings rewrites string Leaves; key is the leaf's field name.
func walkStrings(v any, key string, fn func(key, val string) (string, bool)) any {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			x[k] = walkStrings(c, k, fn)
		}
		return x
	case []any:
		for i, c := range x {
			x[i] = walkStrings(c, key, fn)
		}
		return x
	case string:
		s, _ := fn(key, x)
		return s
	}
	return v
}

func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
