package secrets

import "bytes"

// learner gathers the values one exchange names before they are added
// under one lock, and says which were new (for the journal to persist).
type learner struct {
	mem   *Memory
	ms    []Mask
	keys  []string // secKeys, remembered on commit too
	bdata *Decoded // nil: decode each BDATA
}

func (l *learner) opaque(v []byte) {
	if len(v) == OpaqueLen {
		l.ms = append(l.ms, Mask{Kind: MaskOpaque, Hash: hashOf(v), Len: len(v)})
	}
}

func (l *learner) sign(v []byte) {
	if len(v) >= OpaqueLen && len(v) <= maxSignLen {
		l.ms = append(l.ms, Mask{Kind: MaskSign, Hash: hashOf(v), Len: len(v)})
	}
}

// commit remembers what was gathered and appends the new ones to fresh.
func (l *learner) commit(fresh []Mask) []Mask {
	if len(l.keys) > 0 {
		l.mem.LearnSecKey(l.keys...)
	}
	if len(l.ms) == 0 {
		return fresh
	}
	l.mem.mu.Lock()
	defer l.mem.mu.Unlock()
	for _, m := range l.ms {
		if l.mem.remember(m) {
			fresh = append(fresh, m)
		}
	}
	return fresh
}

// learnAll learns from body and remembers what it names, appending the
// new masks to fresh; l is empty after.
func (l *learner) learnAll(body []byte, fresh []Mask) []Mask {
	l.learnFrom(body, "")
	fresh = l.commit(fresh)
	l.ms, l.keys = l.ms[:0], l.keys[:0]
	return fresh
}

// Contract field names the learner reads directly.
var (
	signFieldKey = []byte(`"SIGN"`)
	bdataKeyName = []byte(`"BDATA"`)
)

// learnFrom gathers the credentials a request or answer names with the
// contract's own field names: in the JSON, in its BDATA, in a page. It
// scans bytes (no regular expression, no JSON decoding but the BDATA's
// base64): the journal writer runs it for every exchange.
func (l *learner) learnFrom(body []byte, text string) {
	l.fields(body)
	if v, ok := stringField(body, bdataKeyName); ok && len(v) > 0 {
		if raw, ok := l.bdata.DecodeBytes(v); ok {
			l.fields(raw)
		}
	}
	if text != "" {
		t := []byte(text)
		l.fields(t)
		for _, m := range secretAttr.FindAllStringSubmatch(text, -1) {
			l.opaque([]byte(m[2]))
		}
		for _, m := range secretQuery.FindAllStringSubmatch(text, -1) {
			l.opaque([]byte(m[2]))
		}
	}
}

func (l *learner) fields(b []byte) {
	if len(b) < OpaqueLen {
		return
	}
	eachKey(b, func(key, value []byte) {
		switch string(key) {
		case "referenceKey", "token", "sessionId":
			l.opaque(value)
		case "secKey":
			l.keys = append(l.keys, string(value))
		case "SIGN":
			l.sign(value)
		}
	})
}

// eachKey calls fn with every `"key": "value"` pair of b whose value is
// a string without escapes (credentials have none), at any depth, in one
// pass: each string of b is read once (a pass per field name was 6% of
// the listing's CPU, whose answers are 3 KB).
func eachKey(b []byte, fn func(key, value []byte)) {
	for {
		i := bytes.IndexByte(b, '"')
		if i < 0 {
			return
		}
		b = b[i+1:]
		end := stringEnd(b)
		if end < 0 {
			return
		}
		key := b[:end]
		b = b[end+1:]
		if bytes.IndexByte(key, '\\') >= 0 {
			continue // no credential's field name has an escape
		}
		if v, rest, ok := stringValue(b); ok {
			fn(key, v)
			b = rest
		}
	}
}

// stringEnd is the index of the quote that ends the JSON string b starts
// inside of, skipping escaped quotes; -1 if there is none.
func stringEnd(b []byte) int {
	from := 0
	for {
		i := bytes.IndexByte(b[from:], '"')
		if i < 0 {
			return -1
		}
		i += from
		n := 0
		for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return i
		}
		from = i + 1
	}
}

// eachStringField calls fn with the raw value of every `"name": "..."`
// in b (a string value without escapes; credentials have none).
func eachStringField(b, name []byte, fn func([]byte)) {
	for {
		i := bytes.Index(b, name)
		if i < 0 {
			return
		}
		b = b[i+len(name):]
		if v, rest, ok := stringValue(b); ok {
			fn(v)
			b = rest
		}
	}
}

// stringField is the first value of name in b.
func stringField(b, name []byte) ([]byte, bool) {
	var out []byte
	found := false
	eachStringField(b, name, func(v []byte) {
		if !found {
			out, found = v, true
		}
	})
	return out, found
}

// stringValue reads `: "value"` at the start of b (spaces allowed).
func stringValue(b []byte) (v, rest []byte, ok bool) {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	if i >= len(b) || b[i] != ':' {
		return nil, b, false
	}
	i++
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	if i >= len(b) || b[i] != '"' {
		return nil, b, false
	}
	i++
	end := bytes.IndexByte(b[i:], '"')
	if end < 0 {
		return nil, b, false
	}
	v = b[i : i+end]
	if bytes.IndexByte(v, '\\') >= 0 {
		return nil, b[i+end+1:], false
	}
	return v, b[i+end+1:], true
}

// LearnFrom remembers the credentials body and text name (a reader
// learning from an entry it shows).
func (mem *Memory) LearnFrom(body []byte, text string) {
	l := learner{mem: mem}
	l.learnFrom(body, text)
	l.commit(nil)
}

// LearnSignsIn remembers the SIGN of an envelope body.
func (mem *Memory) LearnSignsIn(body []byte) {
	l := learner{mem: mem}
	eachStringField(body, signFieldKey, l.sign)
	l.commit(nil)
}
