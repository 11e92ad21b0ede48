// Package schema loads the embedded JSON Schemas and validates requests,
// answers and scenario files against them by name. Each schema is read
// and compiled once, on first use: compiling validates it against the
// draft 2020-12 metaschema, and doing that for every file at start-up cost
// most of rewardsim's start-up time. A test compiles every schema, so a broken one
// cannot ship.
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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/rewardsim/rewardsim/schemas"
)

const base = "https://rewardsim.invalid/schemas/"

// Set is a collection of schemas, keyed by file name without ".json". It
// is safe for concurrent use and immutable but for its lazy compilation.
type Set struct {
	mu      sync.Mutex // the compiler is not safe for concurrent Compile calls
	c       *jsonschema.Compiler
	schemas map[string]*entry // fixed after Compile: read without a lock
	fsys    fs.FS
	docMu   sync.Mutex
	// docs are the decoded files by file name, for the x-reason
	// annotations errors read, decoded on first use (under docMu).
	docs map[string]any
	// compiled counts the schemas compiled so far (Compiled).
	compiled atomic.Int32
}

type entry struct {
	once   sync.Once
	schema *jsonschema.Schema
	err    error
}

// Compile lists every *.json file at the root of fsys. References between
// files are resolved inside fsys; the network is never used. Each file is
// read and decoded on first use, by the schema that names it or one that
// refers to it: decoding all 68 files at start-up cost about a fifth of
// rewardsim's start-up. A file that is not JSON, or a schema that does not
// compile, fails on first use (and in CompileAll, which a test runs).
func Compile(fsys fs.FS) (*Set, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	set := &Set{c: c, fsys: fsys, schemas: make(map[string]*entry, len(names))}
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		n, ok := strings.CutPrefix(u, base)
		if !ok || !set.Has(strings.TrimSuffix(n, ".json")) || !strings.HasSuffix(n, ".json") {
			return nil, fmt.Errorf("schema %s: only embedded schemas are loaded", u)
		}
		return fsys.Open(n)
	}
	for _, n := range names {
		set.schemas[strings.TrimSuffix(n, ".json")] = &entry{}
	}
	return set, nil
}

// doc is file decoded, for the x-reason annotations errors read; nil if
// it is not JSON.
func (s *Set) doc(file string) any {
	s.docMu.Lock()
	defer s.docMu.Unlock()
	if d, ok := s.docs[file]; ok {
		return d
	}
	var d any
	if data, err := fs.ReadFile(s.fsys, file); err == nil && json.Unmarshal(data, &d) != nil {
		d = nil
	}
	if s.docs == nil {
		s.docs = map[string]any{}
	}
	s.docs[file] = d
	return d
}

// Embedded is the process's one Set of the embedded schemas/ files,
// shared by every simulator and by the test harness, so each schema
// compiles once per process however many read it.
var Embedded = sync.OnceValues(func() (*Set, error) { return Compile(schemas.FS) })

// get compiles the named schema the first time it is asked for.
func (s *Set) get(name string) (*jsonschema.Schema, error) {
	e, ok := s.schemas[name]
	if !ok {
		return nil, fmt.Errorf("no schema named %q", name)
	}
	e.once.Do(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.compiled.Add(1)
		e.schema, e.err = s.c.Compile(base + name + ".json")
		if e.err != nil {
			e.err = fmt.Errorf("schema %s: %w", name, e.err)
		}
	})
	return e.schema, e.err
}

// CompileAll compiles every schema now, returning the first failure.
func (s *Set) CompileAll() error {
	for _, n := range s.Names() {
		if _, err := s.get(n); err != nil {
			return err
		}
	}
	return nil
}

// Compiled is how many schemas have been compiled so far: a start-up
// compiles none (issue 56), each request's schema compiles on first use.
func (s *Set) Compiled() int { return int(s.compiled.Load()) }

// Names lists the schemas.
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
	sch, err := s.get(name)
	if err != nil {
		return err
	}
	if valid, ok := quick(sch, v, 0); ok && valid {
		return nil
	}
	err = sch.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	return newError(ve, s.reason)
}

// reason reads the x-reason annotation a schema gives for the keyword at
// an absolute keyword location: on the keyword's own subschema (a not),
// or on the object holding the keyword (a oneOf, an anyOf, a pattern). Keywords such
// as not and oneOf only say "not failed"; the annotation says why in the
// words of the file's author.
func (s *Set) reason(absKeywordLocation string) string {
	file, ptr, ok := strings.Cut(strings.TrimPrefix(absKeywordLocation, base), "#")
	if !ok {
		return ""
	}
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	keyword := toks[len(toks)-1]
	if keyword != "not" && keyword != "oneOf" && keyword != "anyOf" && keyword != "pattern" {
		return ""
	}
	node := s.doc(file)
	var parent any
	for _, tok := range toks {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		parent = node
		switch n := node.(type) {
		case map[string]any:
			node = n[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n) {
				return ""
			}
			node = n[i]
		default:
			return ""
		}
	}
	for _, n := range []any{node, parent} {
		if m, ok := n.(map[string]any); ok {
			if r, ok := m["x-reason"].(string); ok {
				return r
			}
		}
	}
	return ""
}

// ValidateJSON decodes raw and validates it against the named schema.
func (s *Set) ValidateJSON(name string, raw []byte) error {
	_, err := s.DecodeValid(name, raw)
	return err
}

// DecodeValid is ValidateJSON that also returns the decoded document, so
// a caller reads its fields without a second decode.
func (s *Set) DecodeValid(name string, raw []byte) (Parsed, error) {
	p, err := Parse(raw)
	if err != nil {
		return Parsed{}, err
	}
	if err := s.Validate(name, p.Value); err != nil {
		return Parsed{}, err
	}
	return p, nil
}

// Parsed is a JSON document decoded once: Value as DecodeJSON makes it.
type Parsed struct {
	Raw   []byte
	Value any
	// plain: decoded by decodeFast, so no object repeats a key (Into
	// may then read Value instead of Raw).
	plain bool
}

// Parse decodes raw as DecodeJSON does.
func Parse(raw []byte) (Parsed, error) {
	if v, ok := decodeFast(raw); ok {
		return Parsed{Raw: raw, Value: v, plain: true}, nil
	}
	v, err := decodeStd(raw)
	return Parsed{Raw: raw, Value: v}, err
}

// DecodeJSON decodes raw the way the validator expects: numbers kept as
// json.Number, exactly one value, nothing trailing.
func DecodeJSON(raw []byte) (any, error) {
	p, err := Parse(raw)
	return p.Value, err
}

// decodeStd is DecodeJSON by encoding/json alone.
func decodeStd(raw []byte) (any, error) {
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

func newError(ve *jsonschema.ValidationError, reason func(absKeywordLocation string) string) *Error {
	e := &Error{}
	seen := map[string]bool{}
	var walk func(v *jsonschema.ValidationError)
	walk = func(v *jsonschema.ValidationError) {
		if r := reason(v.AbsoluteKeywordLocation); r != "" {
			p := Problem{Path: v.InstanceLocation, Message: r}
			if !seen[p.Path+p.Message] {
				seen[p.Path+p.Message] = true
				e.Problems = append(e.Problems, p)
			}
			return // the author's reason stands for the keyword's causes
		}
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
