package calibrate

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/schemas"
)

// schemaSwitches is every switch a scenario file can set, read from
// schemas/scenario.json: the leaves under tokens, sessions and switches
// (a former name of another switch is not one of its own).
func schemaSwitches(t *testing.T) []string {
	t.Helper()
	raw, err := fs.ReadFile(schemas.FS, "scenario.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	defs := doc["$defs"].(map[string]any)
	var out []string
	var walk func(prefix string, node map[string]any)
	walk = func(prefix string, node map[string]any) {
		if ref, ok := node["$ref"].(string); ok && strings.HasPrefix(ref, "#/$defs/") {
			node = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		}
		props, ok := node["properties"].(map[string]any)
		if !ok || node["type"] != "object" {
			if desc, _ := node["description"].(string); !strings.HasPrefix(desc, "Former name of") {
				out = append(out, prefix)
			}
			return
		}
		for k, v := range props {
			walk(prefix+"."+k, v.(map[string]any))
		}
	}
	top := doc["properties"].(map[string]any)
	for _, area := range []string{"tokens", "sessions", "switches"} {
		walk(area, top[area].(map[string]any))
	}
	slices.Sort(out)
	return out
}

// docsSwitches is every switch of the table in docs/scenarios.md
// ("Behaviour switches"): a row may name several, the later ones
// relative to the first's area.
func docsSwitches(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("../../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(raw), "## Behaviour switches")
	if !ok {
		t.Fatal("docs/scenarios.md has no Behaviour switches section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	name := regexp.MustCompile("`([A-Za-z.]+)`")
	var out []string
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.Split(line, "|")[1]
		area := ""
		for _, m := range name.FindAllStringSubmatch(first, -1) {
			n := m[1]
			if strings.Contains(n, ".") {
				area = n[:strings.LastIndex(n, ".")+1]
			} else {
				n = area + n
			}
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// Every switch a scenario can set is one of calibrate's, and one of the
// docs' table: the schema, the Go table and the docs cannot drift apart
// (switches.webhook.deadline was missing from calibrate's).
func TestSwitches_everySwitchOfTheSchemaAndTheDocs(t *testing.T) {
	fromSchema := schemaSwitches(t)
	var fromGo []string
	for _, s := range Switches {
		fromGo = append(fromGo, s.Name)
	}
	slices.Sort(fromGo)
	if !slices.Equal(fromSchema, fromGo) {
		t.Errorf("schemas/scenario.json's switches and calibrate's differ:\nschema %v\ngo     %v", fromSchema, fromGo)
	}
	if fromDocs := docsSwitches(t); !slices.Equal(fromSchema, fromDocs) {
		t.Errorf("schemas/scenario.json's switches and docs/scenarios.md's table differ:\nschema %v\ndocs   %v", fromSchema, fromDocs)
	}
	if len(fromSchema) < 30 {
		t.Fatalf("read %d switches from the schema: %v", len(fromSchema), fromSchema)
	}
}

// Every switch of the schema is in a run's output, found or not
// determined with a cause and why, whatever stopped the run.
func TestRun_everySwitchInTheOutput(t *testing.T) {
	rep := Run(context.Background(), target(t, deadURL(t)), Options{Budget: 5})
	var table bytes.Buffer
	rep.WriteTable(&table)
	for _, name := range schemaSwitches(t) {
		f, ok := rep.Finding(name)
		switch {
		case !ok:
			t.Errorf("%s: not in the report", name)
		case !f.Determined && (f.Why == "" || f.Cause == ""):
			t.Errorf("%s: not determined, with no why: %+v", name, f)
		case !strings.Contains(table.String(), "\n"+name+" "):
			t.Errorf("%s: not in the table\n%s", name, table.String())
		}
	}
}

// Only an operation a latency profile can name is written as one: the
// session's page (microsite), watched with --wait, is no operation, and
// an overlay naming it would not load.
func TestLatencyFigures_onlyOperationsAreProfiled(t *testing.T) {
	r := &run{latency: map[string][]time.Duration{}}
	for range MinProfileSamples {
		r.latency["microsite"] = append(r.latency["microsite"], time.Millisecond)
		r.latency["getCatalogue"] = append(r.latency["getCatalogue"], time.Millisecond)
	}
	for _, f := range r.latencyFigures() {
		if want := f.Endpoint == "getCatalogue"; f.Profiled != want {
			t.Errorf("%s profiled %v, want %v", f.Endpoint, f.Profiled, want)
		}
	}
}
