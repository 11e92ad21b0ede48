package scenario

// Readable schema problems: a value outside an enumeration or a key the
// schema does not know is told with the names that are allowed and, when
// one is near, "did you mean".

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

var (
	enumMessage  = regexp.MustCompile(`^value must be one of (.*)$`)
	quotedValue  = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"|(-?[0-9.]+)`)
	unknownKeys  = regexp.MustCompile(`'([^']*)'`)
	fileType     = reflect.TypeOf(File{})
	maxSuggested = 3 // edits, for names of 6 letters or more
)

// readable rewrites one schema problem at path (the offending key's or
// value's pointer) for people.
func readable(root *yaml.Node, path, msg string) string {
	if m := enumMessage.FindStringSubmatch(msg); m != nil {
		var allowed []string
		for _, q := range quotedValue.FindAllStringSubmatch(m[1], -1) {
			allowed = append(allowed, q[1]+q[2])
		}
		got, shown := "", `""`
		if n := nodeAt(root, path); n != nil && n.Kind == yaml.ScalarNode {
			got, shown = n.Value, strconv.Quote(n.Value)
			if n.Tag == "!!int" || n.Tag == "!!float" || n.Tag == "!!bool" {
				shown = n.Value
			}
		}
		out := shown + " is not one of " + strings.Join(allowed, ", ")
		if near := nearest(got, allowed); near != "" {
			out += "; did you mean " + near + "?"
		}
		return out
	}
	if rest, ok := strings.CutPrefix(msg, "additionalProperties "); ok && strings.HasSuffix(rest, " not allowed") {
		parent, _ := splitLast(path)
		known := keysAt(parent)
		var parts []string
		for _, k := range unknownKeys.FindAllStringSubmatch(rest, -1) {
			s := "unknown key " + strconv.Quote(k[1])
			if near := nearest(k[1], known); near != "" {
				s += "; did you mean " + near + "?"
			}
			parts = append(parts, s)
		}
		if len(parts) > 0 {
			out := strings.Join(parts, "; ")
			if len(known) > 0 {
				out += " (known keys here: " + strings.Join(known, ", ") + ")"
			}
			return out
		}
	}
	return msg
}

// nearest is the allowed name closest to got: same letters in another
// case, or within a few edits (fewer for short names).
func nearest(got string, allowed []string) string {
	if got == "" {
		return ""
	}
	best, bestD := "", 1<<30
	for _, a := range allowed {
		if strings.EqualFold(a, got) {
			return a
		}
		if d := distance(strings.ToLower(got), strings.ToLower(a)); d < bestD {
			best, bestD = a, d
		}
	}
	limit := maxSuggested
	if len(got) < 6 {
		limit = 1
	}
	if bestD <= limit {
		return best
	}
	return ""
}

// distance is the Damerau-Levenshtein (optimal string alignment) distance.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range rb {
		d[0][j+1] = j + 1
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// keysAt lists the keys the file format knows at a JSON pointer, read
// from the yaml tags of the Go types the file decodes into.
func keysAt(pointer string) []string {
	t := fileType
	for _, part := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		if part == "" {
			continue
		}
		switch t.Kind() {
		case reflect.Slice, reflect.Map:
			t = t.Elem() // part is an index or a map key
		case reflect.Struct:
			f, ok := fieldByTag(t, part)
			if !ok {
				return nil
			}
			t = f.Type
		default:
			return nil
		}
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if name := tagName(t.Field(i)); name != "" {
			out = append(out, name)
		}
	}
	return out
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); tagName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func tagName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" {
		return ""
	}
	return name
}

func splitLast(pointer string) (parent, last string) {
	i := strings.LastIndex(pointer, "/")
	if i < 0 {
		return "", pointer
	}
	return pointer[:i], pointer[i+1:]
}
