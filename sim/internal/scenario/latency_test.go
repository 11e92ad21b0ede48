package scenario_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

// Latency profiles in a scenario file: schema-checked and bounded, each
// refusal at the profile's field (issue 53 item 1).
func TestParse_latencyProfiles(t *testing.T) {
	set, err := schema.Compile(schemas.FS)
	if err != nil {
		t.Fatal(err)
	}
	src := scenario.Sources{Builtin: certs.FS}
	cases := []struct {
		name, yaml, want string
	}{
		{"unknown endpoint", "latency:\n  - {endpoint: GetRewrd, fixed: 10ms}\n", "f.yaml:7: /latency/0/endpoint: endpoint \"GetRewrd\" is not an operation name (did you mean GetReward?)"},
		{"no shape", "latency:\n  - {endpoint: GetReward}\n", "f.yaml:7: /latency/0: a latency profile has exactly one of fixed, uniform and lognormal"},
		{"two shapes", "latency:\n  - {endpoint: GetReward, fixed: 1ms, lognormal: {median: 1ms, p99: 2ms}}\n", "/latency/0: a latency profile has exactly one of fixed, uniform and lognormal"},
		{"cap over the write timeout", "latency:\n  - {endpoint: GetReward, fixed: 1ms, max: 2m}\n", "f.yaml:7: /latency/0/max: 2m0s is over the bound of 1m0s"},
		{"p99 below median", "latency:\n  - {endpoint: GetReward, lognormal: {median: 300ms, p99: 200ms}}\n", "/latency/0/lognormal/p99: p99 200ms is below the median 300ms"},
		{"misspelt key", "latency:\n  - {endpoint: GetReward, lognormal: {median: 3ms, p90: 20ms}}\n", "/latency/0/lognormal/p90: unknown key"},
		{"not a duration", "latency:\n  - {endpoint: GetReward, fixed: soon}\n", "/latency/0/fixed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := scenario.Parse("f.yaml", []byte(base+c.yaml), set, src)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v\nwant one containing %q", err, c.want)
			}
		})
	}
	sc, err := scenario.Parse("f.yaml", []byte(base+`latency:
  - {endpoint: '*', lognormal: {median: 200ms, p99: 800ms}, max: 2s, seed: 7}
  - {endpoint: GetReward, channel: DEMOBANK, fixed: 250ms}
`), set, src)
	if err != nil {
		t.Fatal(err)
	}
	if got := sc.Latency.Find("GetReward", "DEMOBANK").Draw(); got != 250*time.Millisecond {
		t.Errorf("the channel's own profile drew %v, want its fixed 250ms", got)
	}
	if p := sc.Latency.Find("GetReward", "OTHER"); p == nil || p.Kind() != "lognormal" {
		t.Errorf("another channel's call should get the every-endpoint profile, got %+v", p)
	}
}
