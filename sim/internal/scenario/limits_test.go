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

// clause: SIM-1
// Every width, count and repetition a scenario can ask the simulator to
// make at run time is bounded when the file is loaded, at its line, with
// the bound's name (issue 42: {rand:1000000000000} killed the process in
// a reveal's transaction); the bound itself is accepted.
func TestParseBounds_runTimeSizes(t *testing.T) {
	set, err := schema.Compile(schemas.FS)
	if err != nil {
		t.Fatal(err)
	}
	offer := func(field string) string {
		return base + "offers:\n  DEMOBANK:\n    - id: O\n      stock: 1\n" + field
	}
	pool := func(pattern string) string {
		return base + "pools:\n  - id: P\n    entries:\n      - id: E\n        couponPattern: \"" + pattern + "\"\n        offer: {offerTitle: t}\n"
	}
	w := strconv.Itoa(scenario.MaxPatternWidth)
	for _, c := range []struct{ name, yaml, want string }{
		{"rand width", pool("X-{rand:1000000000000}"), "b.yaml:10: /pools/0/entries/0/couponPattern: {rand:1000000000000} is wider than the bound of 64 (MaxPatternWidth)"},
		{"seq width", pool("X-{seq:65}"), "(MaxPatternWidth)"},
		{"placeholders repeated", pool(strings.Repeat("{rewardId}", scenario.MaxPlaceholders+1)), "has 9 placeholders, over the bound of 8 (MaxPlaceholders)"},
		{"template length", pool("{seq}" + strings.Repeat("x", scenario.MaxTemplateBytes)), "(MaxTemplateBytes)"},
		{"offer code pattern", offer("      codes: {pattern: \"" + strings.Repeat("{seq}", 9) + "\"}\n"), "b.yaml:10: /offers/DEMOBANK/0/codes/pattern: has 9 placeholders"},
		{"redirect query", offer("      url: {query: \"" + strings.Repeat("v={virtualId}&", 9) + "\"}\n"), "/offers/DEMOBANK/0/url/query: has 9 placeholders"},
		{"pool weight", strings.Replace(pool("X-{seq}"), "        offer:", "        weight: 9223372036854775807\n        offer:", 1), "/pools/0/entries/0/weight: 9223372036854775807 is over the bound of 1000000 (MaxWeight)"},
		{"list limit", base + "switches:\n  cards: {listDefaultLimit: 10, listMaxLimit: 1000000}\n", "b.yaml:7: /switches/cards/listMaxLimit: 1000000 is over the bound of 1000 (MaxListLimit)"},
		{"webhook deadline", base + "switches:\n  webhook: {deadline: 1h}\n", "/switches/webhook/deadline: 1h0m0s is over the bound of 1m0s (MaxWebhookDeadline)"},
		{"fault delay", base + "faults:\n  - {endpoint: GetReward, action: {kind: delay, delay: 2h}}\n", "/faults/0/action/delay: delay 2h0m0s is over the bound of 1m0s (MaxDelay)"},
		{"at the bounds", pool("X-{rand:"+w+"}-{seq:"+w+"}") + "switches:\n  cards: {listMaxLimit: 1000}\n  webhook: {deadline: 1m}\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := scenario.Parse("b.yaml", []byte(c.yaml), set, scenario.Sources{Builtin: certs.FS})
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused at the bounds: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("Parse: %v, want %q", err, c.want)
			}
		})
	}
}
