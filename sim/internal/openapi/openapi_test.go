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

// Every public path item names its host as a server whose URL is a
// variable per host, and the coupon-status push is under webhooks.
func TestDocumentServersPerHostAndWebhooks(t *testing.T) {
	data, err := openapi.Document(contract.Ops, schemas.FS, openapi.Info{Version: "v", ServerURL: "http://127.0.0.1:8080"})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths    map[string]map[string]json.RawMessage
		Webhooks map[string]struct {
			Post struct {
				RequestBody struct {
					Content map[string]struct{ Schema map[string]string }
				}
			}
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, op := range contract.Ops {
		var servers []struct {
			URL       string
			Variables map[string]struct{ Default string }
		}
		if err := json.Unmarshal(doc.Paths[op.Path]["servers"], &servers); err != nil || len(servers) != 1 {
			t.Errorf("%s: path item servers %s", op.Path, doc.Paths[op.Path]["servers"])
			continue
		}
		v := string(op.Host) + "BaseUrl"
		if servers[0].URL != "{"+v+"}" || servers[0].Variables[v].Default != "http://127.0.0.1:8080" {
			t.Errorf("%s (%s host): server %+v", op.Path, op.Host, servers[0])
		}
	}
	push := doc.Webhooks["couponStatus"].Post.RequestBody.Content["application/json"].Schema["$ref"]
	if push != "#/components/schemas/control.webhook.event" {
		t.Errorf("webhooks.couponStatus body is %q", push)
	}
}

// The control document has every route but the catch-alls, each with a
// unique operationId, its path parameters and its query parameters.
func TestControlDocumentCoversItsRoutes(t *testing.T) {
	routes := []openapi.ControlRoute{
		{"GET", "/__sim/health"}, {"POST", "/__sim/faults"}, {"DELETE", "/__sim/faults/:id"},
		{"GET", "/__sim/state/users/:channel/:virtualId"}, {"GET", "/__sim/"}, {"ANY", "/__sim/*"},
		{"GET", "/__sim/webhooks/:id"},
	}
	data, err := openapi.ControlDocument(routes, schemas.FS, openapi.Info{Version: "v"}, "http://127.0.0.1:8090")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string
			Parameters  []struct{ Name, In string }
			RequestBody *struct {
				Content map[string]struct{ Schema map[string]string }
			}
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Paths) != 6 {
		t.Fatalf("paths %v, want the 6 non-catch-all routes", doc.Paths)
	}
	ids := map[string]bool{}
	for path, item := range doc.Paths {
		for method, o := range item {
			if ids[o.OperationID] || o.OperationID == "" {
				t.Errorf("%s %s: operationId %q not unique", method, path, o.OperationID)
			}
			ids[o.OperationID] = true
		}
	}
	u := doc.Paths["/__sim/state/users/{channel}/{virtualId}"]["get"]
	if len(u.Parameters) != 2 || u.Parameters[1].Name != "virtualId" || u.Parameters[1].In != "path" {
		t.Errorf("path parameters %+v", u.Parameters)
	}
	if w := doc.Paths["/__sim/webhooks/{id}"]["get"]; len(w.Parameters) != 2 || w.Parameters[1].Name != "wait" || w.Parameters[1].In != "query" {
		t.Errorf("GET /__sim/webhooks/{id} parameters %+v, want id and ?wait", w.Parameters)
	}
	if h := doc.Paths["/__sim/health"]["get"]; len(h.Parameters) != 0 {
		t.Errorf("GET /__sim/health parameters %+v, want none", h.Parameters)
	}
	if f := doc.Paths["/__sim/faults"]["post"]; f.RequestBody == nil || f.RequestBody.Content["application/json"].Schema["$ref"] != "#/components/schemas/control.fault" {
		t.Errorf("POST /__sim/faults body %+v", f.RequestBody)
	}
}
