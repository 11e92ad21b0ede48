package recfile

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/match"
)

// Volatile fields are found in the answer schemas, not listed by hand: a
// field is volatile when its schema says what it is. The standard formats
// date-time, date and time, and any pattern a timestamp matches, make a
// time; uri and uri-reference make a URL. Extension formats, annotations
// the validator ignores, name what no standard format names:
//
//	x-time       a time in a switchable format (expireDate, endDate)
//	x-id         a server-assigned id or code (rewardId, coupon_code)
//	x-token      a credential (referenceKey, token, sessionId)
//	x-signature  a signature (SIGN)
//	x-payload    an encoded payload compared decoded (BDATA)
//	x-url        a URL whose shape is not pinned by a pattern
var formatKinds = map[string]MaskKind{
	"date-time": MaskDigits, "date": MaskDigits, "time": MaskDigits, "x-time": MaskDigits,
	"uri": MaskURL, "uri-reference": MaskURL, "x-url": MaskURL,
	"uuid": MaskValue, "x-id": MaskValue, "x-token": MaskValue, "x-signature": MaskValue, "x-payload": MaskValue,
}

// timeSamples are the time shapes the contract uses; a pattern that
// matches one of them describes a time.
var timeSamples = []string{
	"2026-01-15 10:00:00.000", "2026-01-15 10:00:00", "2026-01-15T10:00:00+05:30",
	"2026-01-15T10:00:00Z", "2026-01-15", "20260115100000",
}

// VolatileFields walks the schemas named by roots (file names in fsys
// without ".json", following $ref, oneOf, anyOf, allOf, if/then/else and
// items) and returns every property whose schema marks it volatile, by
// field name, with how it is masked. A name volatile in one schema is
// masked wherever it appears.
func VolatileFields(fsys fs.FS, roots []string) (map[string]MaskKind, error) {
	w := &schemaWalk{fsys: fsys, docs: map[string]any{}, seen: map[string]bool{}, out: map[string]MaskKind{}}
	for _, r := range roots {
		doc, err := w.doc(r + ".json")
		if err != nil {
			return nil, err
		}
		if err := w.walk(r+".json", doc, doc, ""); err != nil {
			return nil, err
		}
	}
	return w.out, nil
}

type schemaWalk struct {
	fsys fs.FS
	docs map[string]any
	seen map[string]bool
	out  map[string]MaskKind
}

func (w *schemaWalk) doc(file string) (any, error) {
	if d, ok := w.docs[file]; ok {
		return d, nil
	}
	data, err := fs.ReadFile(w.fsys, file)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", file, err)
	}
	var d any
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("schema %s: %w", file, err)
	}
	w.docs[file] = d
	return d, nil
}

// resolve follows a $ref ("other.json#/$defs/x", "#/$defs/x", "other.json").
func (w *schemaWalk) resolve(file string, ref string) (string, any, any, error) {
	target, frag, _ := strings.Cut(ref, "#")
	if target == "" {
		target = file
	}
	doc, err := w.doc(target)
	if err != nil {
		return "", nil, nil, err
	}
	node, ok := match.Resolve(doc, frag)
	if !ok {
		return "", nil, nil, fmt.Errorf("schema %s: $ref %s does not resolve", file, ref)
	}
	return target, doc, node, nil
}

// walk visits node (a schema in file); name is the property it describes.
func (w *schemaWalk) walk(file string, doc, node any, name string) error {
	m, ok := node.(map[string]any)
	if !ok {
		return nil
	}
	key := fmt.Sprintf("%s|%p|%s", file, m, name)
	if w.seen[key] {
		return nil
	}
	w.seen[key] = true
	if name != "" {
		if k, ok := kindOf(m); ok && (w.out[name] == "" || k == MaskValue) {
			w.out[name] = k
		}
	}
	if ref, ok := m["$ref"].(string); ok {
		f, d, n, err := w.resolve(file, ref)
		if err != nil {
			return err
		}
		if err := w.walk(f, d, n, name); err != nil {
			return err
		}
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for _, k := range slices.Sorted(maps.Keys(props)) {
			if err := w.walk(file, doc, props[k], k); err != nil {
				return err
			}
		}
	}
	children := []any{m["items"], m["if"], m["then"], m["else"]}
	for _, kw := range []string{"oneOf", "anyOf", "allOf", "prefixItems"} {
		if list, ok := m[kw].([]any); ok {
			children = append(children, list...)
		}
	}
	for _, c := range children {
		if err := w.walk(file, doc, c, name); err != nil {
			return err
		}
	}
	return nil
}

// kindOf reads a schema's own format or pattern.
func kindOf(m map[string]any) (MaskKind, bool) {
	if f, ok := m["format"].(string); ok {
		if k, ok := formatKinds[f]; ok {
			return k, true
		}
	}
	if p, ok := m["pattern"].(string); ok {
		re, err := regexp.Compile(p)
		if err != nil {
			return "", false
		}
		for _, s := range timeSamples {
			if re.MatchString(s) {
				return MaskDigits, true
			}
		}
		if re.MatchString("https://example.com/x") && !re.MatchString("example") {
			return MaskURL, true
		}
	}
	return "", false
}
