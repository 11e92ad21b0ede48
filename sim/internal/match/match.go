// Package match is what a publisher's expectation says of a request:
// predicates on the values at JSON pointers (RFC 6901) of the request as
// it was meant, typed, as text or by a regular expression (RE2). The
// journal's query filters by them and verify counts by them.
package match

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Predicate is one condition on a request as the publisher meant it: the
// value at a JSON pointer (RFC 6901) of the decoded BDATA of a signed
// envelope, else of the JSON body, else of a GET's query.
type Predicate struct {
	Pointer string
	// Want is a string, float64 or bool (typed, from JSON); Text, when
	// Loose, is compared with the found value's text (the CLI's and the
	// journal query's /ptr=value form).
	Want  any
	Loose bool
	Regex *regexp.Regexp
}

// Where is every predicate a request must pass, in pointer order.
type Where []Predicate

// Parse reads the JSON form {"/ptr": value | {"regex": "..."} |
// {"text": "..."}}: a value compares typed (100 is not "100"); text
// compares the found value's text (the CLI's /ptr=value).
func Parse(m map[string]json.RawMessage) (Where, error) {
	var w Where
	for _, ptr := range sortedKeys(m) {
		if err := checkPointer(ptr); err != nil {
			return nil, err
		}
		var v any
		if err := json.Unmarshal(m[ptr], &v); err != nil {
			return nil, fmt.Errorf("where %s: %v", ptr, err)
		}
		p := Predicate{Pointer: ptr, Want: v}
		switch t := v.(type) {
		case string, float64, bool:
		case map[string]any:
			re, isRe := t["regex"].(string)
			txt, isText := t["text"].(string)
			switch {
			case len(t) == 1 && isText:
				p.Want, p.Loose = txt, true
			case len(t) == 1 && isRe:
				var ok bool
				if p.Regex, ok = compileRegex(re); !ok {
					return nil, fmt.Errorf("where %s: %q is not an RE2 regular expression (Go's regexp syntax: no lookaround, no backreferences)", ptr, re)
				}
			default:
				return nil, fmt.Errorf(`where %s: an object must be {"regex": "..."} or {"text": "..."}`, ptr)
			}
		default:
			return nil, fmt.Errorf(`where %s: want a string, number, boolean or {"regex": "..."}`, ptr)
		}
		w = append(w, p)
	}
	return w, nil
}

// ParseText reads one "/ptr=value" (text compare) or "/ptr~=regex".
func ParseText(s string) (Predicate, error) {
	ptr, val, ok := strings.Cut(s, "=")
	if !ok {
		return Predicate{}, fmt.Errorf("where %q: want /pointer=value or /pointer~=regex", s)
	}
	if re, isRe := strings.CutSuffix(ptr, "~"); isRe {
		if err := checkPointer(re); err != nil {
			return Predicate{}, err
		}
		rx, ok := compileRegex(val)
		if !ok {
			return Predicate{}, fmt.Errorf("where %s: %q is not an RE2 regular expression (Go's regexp syntax: no lookaround, no backreferences)", re, val)
		}
		return Predicate{Pointer: re, Regex: rx}, nil
	}
	if err := checkPointer(ptr); err != nil {
		return Predicate{}, err
	}
	return Predicate{Pointer: ptr, Want: val, Loose: true}, nil
}

func compileRegex(s string) (*regexp.Regexp, bool) {
	if len(s) > 1024 {
		return nil, false
	}
	re, err := regexp.Compile(s)
	return re, err == nil
}

func checkPointer(p string) error {
	if !strings.HasPrefix(p, "/") || len(p) > 512 {
		return fmt.Errorf("where %q: a JSON pointer starts with /", p)
	}
	return nil
}

func sortedKeys(m map[string]json.RawMessage) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// Fails is the first predicate doc fails, written out, and how many
// passed before it; "" when doc passes them all.
func (w Where) Fails(doc any) (string, int) {
	for i, p := range w {
		got, found := Resolve(doc, p.Pointer)
		if !found {
			return fmt.Sprintf("%s: want %s, got nothing", p.Pointer, p.want()), i
		}
		if !p.matches(got) {
			g, _ := json.Marshal(got)
			return fmt.Sprintf("%s: want %s, got %s", p.Pointer, p.want(), g), i
		}
	}
	return "", len(w)
}

func (p Predicate) want() string {
	if p.Regex != nil {
		return "/" + p.Regex.String() + "/ (regex)"
	}
	b, _ := json.Marshal(p.Want)
	return string(b)
}

func (p Predicate) matches(got any) bool {
	if p.Regex != nil {
		s, ok := got.(string)
		if !ok {
			s = text(got)
		}
		return p.Regex.MatchString(s)
	}
	if p.Loose {
		return text(got) == p.Want
	}
	return got == p.Want // string, float64 or bool: comparable
}

// text is a found value as the CLI writes it: a string as is, anything
// else as JSON.
func text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Resolve follows an RFC 6901 pointer through decoded JSON ("" is the
// whole document).
func Resolve(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	cur := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch t := cur.(type) {
		case map[string]any:
			v, ok := t[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(t) {
				return nil, false
			}
			cur = t[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// Doc is a request as the publisher meant it, what predicates read: the
// decoded BDATA of a signed envelope, else the JSON body, else the query
// of a request without a body (each value a string; a repeated name a
// list of strings).
func Doc(bdata, body json.RawMessage, query string) any {
	raw := bdata
	if len(raw) == 0 {
		raw = body
	}
	if len(raw) > 0 {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			return v
		}
	}
	q, err := url.ParseQuery(query)
	if err != nil || len(q) == 0 {
		return nil
	}
	doc := map[string]any{}
	for k, vs := range q {
		if len(vs) == 1 {
			doc[k] = vs[0]
		} else {
			doc[k] = slices.Clone(vs)
		}
	}
	return doc
}
