package schema

import (
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Reach says whether a JSON pointer names a place a document of the
// named schema can have a value at. An object schema that lists its
// properties is closed to every other name (verify's `where` must not
// count nothing because of a typo); one that lists none, like
// additionalParams, is open below. When the pointer leaves the schema,
// fields are the names the schema has where it left, sorted.
func (s *Set) Reach(name, pointer string) (ok bool, at string, fields []string, err error) {
	sch, err := s.get(name)
	if err != nil {
		return false, "", nil, err
	}
	if pointer == "" {
		return true, "", nil, nil
	}
	tokens := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	for i, t := range tokens {
		tokens[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(t)
	}
	ok, depth, fields := reach([]*jsonschema.Schema{sch}, tokens, 0)
	return ok, "/" + strings.Join(tokens[:depth], "/"), fields, nil
}

// reach walks tokens from the schemas a value may match at depth; on a
// miss it returns the depth and the names known there.
func reach(at []*jsonschema.Schema, tokens []string, depth int) (bool, int, []string) {
	if depth == len(tokens) {
		return true, depth, nil
	}
	var next, known []string
	var children []*jsonschema.Schema
	for _, b := range branches(at) {
		switch {
		case b.Always != nil:
			if *b.Always {
				return true, depth, nil
			}
		case len(b.Properties) > 0:
			if c, ok := b.Properties[tokens[depth]]; ok {
				children = append(children, c)
			}
			if extra, ok := b.AdditionalProperties.(*jsonschema.Schema); ok {
				children = append(children, extra)
			}
			for k := range b.Properties {
				known = append(known, k)
			}
		case b.Items2020 != nil:
			if _, err := strconv.Atoi(tokens[depth]); err == nil {
				children = append(children, b.Items2020)
			}
		case open(b):
			return true, depth, nil
		}
	}
	best := depth
	for _, c := range children {
		ok, d, f := reach([]*jsonschema.Schema{c}, tokens, depth+1)
		if ok {
			return true, d, nil
		}
		if d >= best {
			best, next = d, f
		}
	}
	if best > depth {
		return false, best, next
	}
	slices.Sort(known)
	return false, depth, slices.Compact(known)
}

// branches is every schema a value at one place must or may match: the
// schemas themselves, their $ref and their allOf, anyOf and oneOf.
func branches(at []*jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	var add func(s *jsonschema.Schema, depth int)
	add = func(s *jsonschema.Schema, depth int) {
		if s == nil || depth > 16 {
			return
		}
		out = append(out, s)
		add(s.Ref, depth+1)
		for _, group := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
			for _, g := range group {
				add(g, depth+1)
			}
		}
	}
	for _, s := range at {
		add(s, 0)
	}
	return out
}

// open is a schema that lets an object have any member: an object type
// (or no type at all) with no properties listed and additional ones not
// refused.
func open(s *jsonschema.Schema) bool {
	if s.Ref != nil || len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) > 0 {
		return false
	}
	if no, ok := s.AdditionalProperties.(bool); ok && !no {
		return false
	}
	return len(s.Types) == 0 && s.Constant == nil && s.Enum == nil || slices.Contains(s.Types, "object")
}

// Nearest is the name of names closest to want (same letters in another
// case, else at most two edits, or a quarter of its length), if any: a
// "did you mean".
func Nearest(want string, names []string) (string, bool) {
	best, bestD := "", -1
	for _, n := range names {
		if strings.EqualFold(n, want) {
			return n, true
		}
		if d := editDistance(strings.ToLower(want), strings.ToLower(n)); bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	return best, bestD >= 0 && bestD <= max(2, len(want)/4)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
