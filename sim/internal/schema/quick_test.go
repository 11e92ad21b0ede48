package schema

import (
	"encoding/json"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/rewardsim/rewardsim/schemas"
)

// quick never calls an instance valid that the library refuses. The
// instances: every JSON value (and every value inside one) of the golden
// files under fixtures/, and mutations of each object (a property
// dropped, or replaced by values of every type and edge length), checked
// against every embedded schema.
func TestQuickAgrees(t *testing.T) {
	set, err := Compile(schemas.FS)
	if err != nil {
		t.Fatal(err)
	}
	if err := set.CompileAll(); err != nil {
		t.Fatal(err)
	}
	var instances []any
	_ = filepath.WalkDir("../../../fixtures", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		raw, _ := os.ReadFile(path)
		if v, err := DecodeJSON(raw); err == nil {
			instances = collect(instances, v)
		}
		return nil
	})
	if len(instances) < 100 {
		t.Fatalf("only %d instances from fixtures/", len(instances))
	}
	quickValid := map[string]int{}
	checked := 0
	for _, name := range set.Names() {
		sch, _ := set.get(name)
		for _, v := range instances {
			valid, ok := quick(sch, v, 0)
			if !ok || !valid {
				continue
			}
			quickValid[name]++
			checked++
			if err := sch.Validate(v); err != nil {
				b, _ := json.Marshal(v)
				t.Errorf("%s: quick says valid, the library says %v\n%s", name, err, b)
			}
		}
	}
	t.Logf("%d instances, %d quick-valid verdicts cross-checked", len(instances), checked)
	// The hot request shapes are decided by quick, or it speeds nothing up.
	for _, name := range []string{"GetReward.request", "fetchCouponCode.request", "envelope.request"} {
		if quickValid[name] == 0 {
			t.Errorf("%s: quick decided no instance", name)
		}
	}
}

// collect adds v, every value inside it, and mutations of every object.
func collect(out []any, v any) []any {
	out = append(out, v)
	switch x := v.(type) {
	case map[string]any:
		replacements := []any{nil, true, "", "x", strings.Repeat("é", 300), json.Number("-1"), json.Number("1.5"),
			json.Number("12"), json.Number("1e400"), map[string]any{}, []any{}, "2026-01-15 10:00:00"}
		for k, val := range x {
			out = collect(out, val)
			drop := clone(x)
			delete(drop, k)
			out = append(out, drop)
			for _, r := range replacements {
				m := clone(x)
				m[k] = r
				out = append(out, m)
			}
		}
		extra := clone(x)
		extra["unexpectedField"] = "x"
		out = append(out, extra)
	case []any:
		for _, e := range x {
			out = collect(out, e)
		}
	}
	return out
}

func clone(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// zeroBounds decides zero bounds as big.Rat's comparison does, on number
// literals of every sign, zeros written many ways, fractions and
// exponents; any non-zero bound is left undecided.
func TestZeroBoundsAgrees(t *testing.T) {
	literals := []string{"0", "-0", "0.0", "-0.000", "0e5", "-0E-5", "0.00e+10", "1", "-1", "100.00", "-100.00", "0.01", "-0.01",
		"1e-400", "-1e-400", "0.0001e2", "-0.0000000001", "5E3", "-5e+3", "10", "-10.5", "0.10"}
	zero, one := new(big.Rat), big.NewRat(1, 1)
	for mask := range 16 {
		for _, bound := range []*big.Rat{zero, one} {
			s := &jsonschema.Schema{}
			for i, field := range []**big.Rat{&s.Minimum, &s.Maximum, &s.ExclusiveMinimum, &s.ExclusiveMaximum} {
				if mask&(1<<i) != 0 {
					*field = bound
				}
			}
			for _, lit := range literals {
				valid, decided := zeroBounds(s, json.Number(lit))
				if bound != zero && mask != 0 {
					if decided {
						t.Errorf("bound %v mask %b: %s decided", bound, mask, lit)
					}
					continue
				}
				r, _ := new(big.Rat).SetString(lit)
				want := (s.Minimum == nil || r.Cmp(s.Minimum) >= 0) && (s.Maximum == nil || r.Cmp(s.Maximum) <= 0) &&
					(s.ExclusiveMinimum == nil || r.Cmp(s.ExclusiveMinimum) > 0) && (s.ExclusiveMaximum == nil || r.Cmp(s.ExclusiveMaximum) < 0)
				if !decided || valid != want {
					t.Errorf("mask %b: %s: %v (decided %v), want %v", mask, lit, valid, decided, want)
				}
			}
		}
	}
}
