package sim

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

// Start-up compiles no schema (issue 56): each compiles on the first
// request that names it, and compiling them at start-up was most of
// serve's start-up time. A fresh set stands in for the process's shared
// one, which other tests have compiled by now.
func TestNew_compilesNoSchemaToTheFirstHealthAnswer(t *testing.T) {
	set, err := schema.Compile(schemas.FS)
	if err != nil {
		t.Fatal(err)
	}
	saved := compiledSchemas
	t.Cleanup(func() { compiledSchemas = saved })
	compiledSchemas = func() (*schema.Set, error) { return set, nil }
	s, err := New(Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := httptest.NewRecorder()
	s.Handler(Control).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/__sim/health", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("health: %d %s", rec.Code, rec.Body)
	}
	if n := set.Compiled(); n != 0 {
		t.Fatalf("%d schemas compiled by New and a health check, want 0", n)
	}
	// The check can fail: a request that names a schema compiles it.
	if err := set.Validate("scenario", map[string]any{}); err == nil {
		t.Fatal("an empty scenario validated")
	}
	if set.Compiled() == 0 {
		t.Fatal("Validate compiled no schema: Compiled does not count")
	}
}
