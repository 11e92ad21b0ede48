package fault

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// property is a JSON Schema property, the parts a shape is compared on.
type property struct {
	Type                 string              `json:"type"`
	Ref                  string              `json:"$ref"`
	Enum                 []any               `json:"enum"`
	Required             []string            `json:"required"`
	AdditionalProperties *bool               `json:"additionalProperties"`
	Properties           map[string]property `json:"properties"`
}

// ruleSchema is the scenario schema's fault rule, which control.fault.json
// (POST /__sim/faults) names too.
func ruleSchema(t *testing.T) property {
	t.Helper()
	var s struct {
		Defs struct {
			Fault property `json:"fault"`
		} `json:"$defs"`
	}
	raw, err := schemas.FS.ReadFile("scenario.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	var control struct {
		Ref string `json:"$ref"`
	}
	raw, err = schemas.FS.ReadFile("control.fault.json")
	if err != nil || json.Unmarshal(raw, &control) != nil || control.Ref != "scenario.json#/$defs/fault" {
		t.Fatalf("control.fault.json is not the scenario schema's fault rule ($ref %q, %v)", control.Ref, err)
	}
	return s.Defs.Fault
}

var durationType = reflect.TypeFor[model.Duration]()

// shapeDiff lists where the Go type typ and the schema object s differ:
// a field the schema lacks, a property the type lacks, a field whose JSON
// and YAML names differ, a required property that is omitempty in Go (or
// the other way), a property of another type, and an object that does
// not refuse what the type would drop. Structs are compared field by
// field, at path.
func shapeDiff(path string, typ reflect.Type, s property) []string {
	var out []string
	if s.AdditionalProperties == nil || *s.AdditionalProperties {
		out = append(out, path+": the schema takes properties the Go type would drop (additionalProperties is not false)")
	}
	seen := map[string]bool{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, optional, ok := jsonName(f)
		if !ok {
			continue
		}
		at := path + "/" + name
		seen[name] = true
		if y, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); y != name {
			out = append(out, fmt.Sprintf("%s: the YAML name is %q (a scenario file's rule), the JSON name %q", at, y, name))
		}
		p, ok := s.Properties[name]
		if !ok {
			out = append(out, fmt.Sprintf("%s: Go's %s.%s has no property in the schema", at, typ.Name(), f.Name))
			continue
		}
		if optional == slices.Contains(s.Required, name) {
			out = append(out, fmt.Sprintf("%s: omitempty is %v in Go, required is %v in the schema", at, optional, !optional))
		}
		out = append(out, typeDiff(at, f.Type, p)...)
	}
	var extra []string
	for name := range s.Properties {
		if !seen[name] {
			extra = append(extra, fmt.Sprintf("%s/%s: the schema's property has no field in Go's %s", path, name, typ.Name()))
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}

// jsonName is a field's JSON name and whether it is omitempty; false for
// a field JSON leaves out.
func jsonName(f reflect.StructField) (name string, omitempty, ok bool) {
	name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name, strings.Contains(opts, "omitempty"), f.IsExported() && name != "-"
}

// typeDiff compares one field's Go type with its schema property.
func typeDiff(at string, typ reflect.Type, p property) []string {
	want := map[reflect.Kind]string{reflect.String: "string", reflect.Int: "integer", reflect.Int64: "integer",
		reflect.Float64: "number", reflect.Struct: "object"}[typ.Kind()]
	switch {
	case typ == durationType:
		if p.Ref != "#/$defs/duration" {
			return []string{fmt.Sprintf("%s: a duration in Go, $ref %q in the schema", at, p.Ref)}
		}
	case typ.Kind() == reflect.Struct:
		if p.Type != "object" {
			return []string{fmt.Sprintf("%s: a struct in Go, type %q in the schema", at, p.Type)}
		}
		return shapeDiff(at, typ, p)
	case want == "":
		return []string{fmt.Sprintf("%s: Go's %v has no schema type this test knows", at, typ)}
	case p.Type == "" && len(p.Enum) > 0:
		for _, v := range p.Enum {
			if _, ok := v.(string); !ok || want != "string" {
				return []string{fmt.Sprintf("%s: %v in Go, enum value %v in the schema", at, typ, v)}
			}
		}
	case p.Type != want:
		return []string{fmt.Sprintf("%s: %v in Go, type %q in the schema", at, typ, p.Type)}
	}
	return nil
}

// A rule's shape is written once in Go (Rule, Action): the JSON Schema
// the control API and scenario files validate against names the same
// fields, both ways and nested action included, with the same types and
// the same required ones; the CLI and the control client use the Go type
// itself (controlapi.FaultRule).
func TestRuleShape_schemaMatchesTheGoType(t *testing.T) {
	if diff := shapeDiff("", reflect.TypeFor[Rule](), ruleSchema(t)); len(diff) > 0 {
		t.Errorf("fault.Rule and the schema's fault rule (schemas/scenario.json $defs/fault) differ:\n%s", strings.Join(diff, "\n"))
	}
}

// The comparison fails where a shape drifts: each case changes one side
// of the real pair and names the difference it must report.
func TestRuleShape_driftIsCaught(t *testing.T) {
	type ruleWithWeight struct {
		Endpoint string `yaml:"endpoint" json:"endpoint"`
		Action   Action `yaml:"action" json:"action"`
		Weight   int    `yaml:"weight,omitempty" json:"weight,omitempty"`
	}
	type actionWithRetry struct {
		Kind  string `yaml:"kind" json:"kind"`
		Retry int    `yaml:"retry,omitempty" json:"retry,omitempty"`
	}
	type ruleWithRetry struct {
		Endpoint string          `yaml:"endpoint" json:"endpoint"`
		Action   actionWithRetry `yaml:"action" json:"action"`
	}
	cases := []struct {
		name   string
		typ    reflect.Type
		change func(*property)
		want   string
	}{
		{"a Go field the schema lacks", reflect.TypeFor[ruleWithWeight](), nil, "/weight: Go's ruleWithWeight.Weight has no property in the schema"},
		{"a schema property Go lacks", reflect.TypeFor[Rule](), func(p *property) {
			p.Properties["weight"] = property{Type: "integer"}
		}, "/weight: the schema's property has no field in Go's Rule"},
		{"a nested action property Go lacks", reflect.TypeFor[Rule](), func(p *property) {
			a := p.Properties["action"]
			a.Properties = maps.Clone(a.Properties)
			a.Properties["retryAfter"] = property{Type: "integer"}
			p.Properties["action"] = a
		}, "/action/retryAfter: the schema's property has no field in Go's Action"},
		{"a nested action field the schema lacks", reflect.TypeFor[ruleWithRetry](), nil, "/action/retry: Go's actionWithRetry.Retry has no property in the schema"},
		{"a YAML name apart from the JSON one", reflect.TypeFor[struct {
			Endpoint string `yaml:"operation" json:"endpoint"`
		}](), nil, `/endpoint: the YAML name is "operation"`},
		{"required in one, omitempty in the other", reflect.TypeFor[Rule](), func(p *property) {
			p.Required = append(p.Required, "times")
		}, "/times: omitempty is true in Go, required is false in the schema"},
		{"another type", reflect.TypeFor[Rule](), func(p *property) {
			p.Properties["nth"] = property{Type: "string"}
		}, `/nth: int in Go, type "string" in the schema`},
		{"additional properties taken", reflect.TypeFor[Rule](), func(p *property) {
			p.AdditionalProperties = nil
		}, ": the schema takes properties the Go type would drop"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := ruleSchema(t)
			s.Properties = maps.Clone(s.Properties)
			if tc.change != nil {
				tc.change(&s)
			}
			diff := shapeDiff("", tc.typ, s)
			if !slices.ContainsFunc(diff, func(d string) bool { return strings.HasPrefix(d, tc.want) }) {
				t.Errorf("the comparison said %q, want a line starting %q", diff, tc.want)
			}
		})
	}
}
