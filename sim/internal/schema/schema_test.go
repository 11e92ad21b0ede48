package schema_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

// Every embedded schema compiles (against the draft 2020-12 metaschema),
// and none repeats a key in an object: JSON
// keeps the last duplicate silently, so a repeated definition would shadow
// another without any error.
func TestSchemasCompileWithoutDuplicateKeys(t *testing.T) {
	set, err := schema.Compile(schemas.FS)
	if err != nil {
		t.Fatal(err)
	}
	// Schemas compile lazily in service; here every one must compile.
	if err := set.CompileAll(); err != nil {
		t.Fatal(err)
	}
	names, _ := fs.Glob(schemas.FS, "*.json")
	for _, n := range names {
		data, _ := fs.ReadFile(schemas.FS, n)
		if dup := firstDuplicateKey(t, data); dup != "" {
			t.Errorf("%s: key %s appears twice in one object", n, dup)
		}
	}
}

func TestFirstDuplicateKeyFindsOne(t *testing.T) {
	if got := firstDuplicateKey(t, []byte(`{"a":{"x":1,"y":2,"x":3}}`)); got != "/a/x" {
		t.Fatalf("got %q", got)
	}
	if got := firstDuplicateKey(t, []byte(`{"a":[{"x":1},{"x":2}]}`)); got != "" {
		t.Fatalf("got %q", got)
	}
}

// firstDuplicateKey walks the token stream and returns the JSON pointer of
// the first repeated key, or "".
func firstDuplicateKey(t *testing.T, data []byte) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	var walk func(path string) string
	walk = func(path string) string {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, _ := dec.Token()
				key := k.(string)
				p := path + "/" + strings.ReplaceAll(key, "/", "~1")
				if seen[key] {
					return p
				}
				seen[key] = true
				if d := walk(p); d != "" {
					return d
				}
			}
			dec.Token()
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if d := walk(path); d != "" {
					return d
				}
			}
			dec.Token()
		}
		return ""
	}
	return walk("")
}
