package scenario_test

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/scenarios"
	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

// parseAllocLimit is the most one Parse may allocate, whatever the input:
// every bound is far below it (the default scenario costs about 1 MiB).
const parseAllocLimit = 64 << 20

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// aliasBomb is the 504 KB file: one 500,000-character anchored
// value and aliases to it, which once expanded to 500 MB per 1,000.
func aliasBomb(value, aliases int) string {
	var b strings.Builder
	b.WriteString(base + "description: &s \"" + strings.Repeat("x", value) + "\"\nx: [")
	for i := range aliases {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("*s")
	}
	b.WriteString("]\n")
	return b.String()
}

// laughs nests aliases: each level lists the previous one ten times.
func laughs(levels int) string {
	var b strings.Builder
	b.WriteString(base + "l0: &l0 [\"lol\"]\n")
	for i := 1; i <= levels; i++ {
		b.WriteString("l" + itoa(i) + ": &l" + itoa(i) + " [")
		for j := range 10 {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString("*l" + itoa(i-1))
		}
		b.WriteString("]\n")
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

// Files that would expand without bound are refused, naming the limit,
// before anything is expanded; the refusal allocates a bounded amount.
func TestParseBounds_refusesExpansionBombs(t *testing.T) {
	set, err := schema.Compile(schemas.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, yaml, want string
	}{
		{"issue's 504 KB alias file", aliasBomb(250_000, 1000), "MaxExpandedBytes"},
		{"billion laughs", laughs(9), "MaxNodes"},
		{"over the file size", base + "description: \"" + strings.Repeat("y", scenario.MaxFileBytes) + "\"\n", "MaxFileBytes"},
		{"many small keys", base + strings.Repeat("k: v\n", scenario.MaxFileBytes/5+1), "MaxFileBytes"},
		{"flow mapping of many nodes", base + "m: [" + strings.Repeat("1,", 60_000) + "1]\n", "MaxNodes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var perr error
			n := allocated(func() {
				_, perr = scenario.Parse("bomb.yaml", []byte(c.yaml), set, scenario.Sources{Builtin: certs.FS})
			})
			if perr == nil || !strings.Contains(perr.Error(), c.want) {
				t.Fatalf("Parse: %v, want a refusal naming %s", perr, c.want)
			}
			if n > parseAllocLimit {
				t.Fatalf("refusing it allocated %d MiB, over %d MiB", n>>20, parseAllocLimit>>20)
			}
		})
	}
}

// FuzzScenarioParse: no input may panic Parse or make it allocate more
// than parseAllocLimit.
func FuzzScenarioParse(f *testing.F) {
	set, err := schema.Compile(schemas.FS)
	if err != nil {
		f.Fatal(err)
	}
	def, _ := scenarios.FS.ReadFile(scenarios.Default)
	for _, seed := range []string{string(def), base, aliasBomb(100, 10), laughs(3), "a: &a [*a]\n", "{", "- - - -"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if n := allocated(func() {
			_, _ = scenario.Parse("fuzz.yaml", data, set, scenario.Sources{Builtin: certs.FS})
		}); n > parseAllocLimit {
			t.Fatalf("Parse of %d bytes allocated %d MiB", len(data), n>>20)
		}
	})
}
