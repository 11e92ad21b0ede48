// Package schema compiles the embedded JSON Schemas once and validates
// requests, answers and scenario files against them by name.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

const base = "https://rewardsim.invalid/schemas/"

// Set is a compiled collection of schemas, keyed by file name without ".json".
type Set struct {
	schemas map[string]*jsonschema.Schema
}

// Compile reads every *.json file at the root of fsys and compiles it.
// References between files are resolved inside fsys; the network is never used.
func Compile(fsys fs.FS) (*Set, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("schema %s: only embedded schemas are loaded", u)
	}
	for _, n := range names {
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		if err := c.AddResource(base+n, bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("schema %s: %w", n, err)
		}
	}
	set := &Set{schemas: make(map[string]*jsonschema.Schema, len(names))}
	for _, n := range names {
		s, err := c.Compile(base + n)
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", n, err)
		}
		set.schemas[strings.TrimSuffix(n, ".json")] = s
	}
	return set, nil
}

// Names lists the compiled schemas.
func (s *Set) Names() []string {
	out := make([]string, 0, len(s.schemas))
	for n := range s.schemas {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Has reports whether a schema of that name exists.
func (s *Set) Has(name string) bool { _, ok := s.schemas[name]; return ok }

// Validate checks a decoded JSON value (as produced by DecodeJSON) against
// the named schema. The error, if any, is a *Error naming each bad field.
func (s *Set) Validate(name string, v any) error {
	sch, ok := s.schemas[name]
	if !ok {
		return fmt.Errorf("no schema named %q", name)
	}
	err := sch.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	return newError(ve)
}

// ValidateJSON decodes raw and validates it against the named schema.
func (s *Set) ValidateJSON(name string, raw []byte) error {
	v, err := DecodeJSON(raw)
	if err != nil {
		return err
	}
	return s.Validate(name, v)
}

// DecodeJSON decodes raw the way the validator expects: numbers kept as
// json.Number, exactly one value, nothing trailing.
func DecodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("not valid JSON: more than one value")
	}
	return v, nil
}

// Error lists what is wrong with an instance, one entry per failing field.
type Error struct {
	Problems []Problem
}

// Problem is one failing field: Path is a JSON pointer ("" for the root,
// "/virtualId" for a field), Field the same as a dotted name.
type Problem struct {
	Path    string
	Message string
}

// Field renders Path as a dotted name, "body" for the root.
func (p Problem) Field() string {
	if p.Path == "" || p.Path == "/" {
		return "body"
	}
	return strings.ReplaceAll(strings.TrimPrefix(p.Path, "/"), "/", ".")
}

func (e *Error) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Field() + ": " + p.Message
	}
	return strings.Join(parts, "; ")
}

func newError(ve *jsonschema.ValidationError) *Error {
	e := &Error{}
	seen := map[string]bool{}
	var walk func(v *jsonschema.ValidationError)
	walk = func(v *jsonschema.ValidationError) {
		if len(v.Causes) == 0 {
			p := Problem{Path: v.InstanceLocation, Message: v.Message}
			// "missing properties: 'x'" is reported on the parent; name the field itself.
			if strings.HasPrefix(v.Message, "missing properties: ") {
				for _, f := range strings.Split(strings.TrimPrefix(v.Message, "missing properties: "), ", ") {
					f = strings.Trim(f, "'")
					q := Problem{Path: path.Join("/", v.InstanceLocation, f), Message: "is required"}
					if !seen[q.Path+q.Message] {
						seen[q.Path+q.Message] = true
						e.Problems = append(e.Problems, q)
					}
				}
				return
			}
			if !seen[p.Path+p.Message] {
				seen[p.Path+p.Message] = true
				e.Problems = append(e.Problems, p)
			}
			return
		}
		for _, c := range v.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.SliceStable(e.Problems, func(i, j int) bool { return e.Problems[i].Path < e.Problems[j].Path })
	return e
}
