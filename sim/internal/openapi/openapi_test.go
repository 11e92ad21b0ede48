package openapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/openapi"
)

// Every operation of the contract table is in the document under its
// path and method, and every $ref points at something in the document.
// (The document's validity as OpenAPI 3.1 is checked by an independent
// validator in .ci/tools/openapi.)
func TestDocumentCoversTheTableAndResolves(t *testing.T) {
	raw, err := openapi.Document(contract.Ops, schemas.FS, openapi.Info{Version: "v1", ServerURL: "http://127.0.0.1:8080"})
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	paths := doc["paths"].(map[string]any)
	for _, op := range contract.Ops {
		item, _ := paths[op.Path].(map[string]any)
		o, _ := item[strings.ToLower(op.Method)].(map[string]any)
		if o == nil || o["operationId"] != op.Name {
			t.Errorf("%s %s (%s) missing", op.Method, op.Path, op.Name)
		}
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				if !resolves(doc, ref) {
					t.Errorf("$ref %s does not resolve", ref)
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
}

func resolves(doc map[string]any, ref string) bool {
	ptr, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return false
	}
	var cur any = doc
	for _, part := range strings.Split(ptr, "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = m[strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")]; !ok {
			return false
		}
	}
	return true
}
