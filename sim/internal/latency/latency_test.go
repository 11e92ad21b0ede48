package latency

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

func ms(n int) model.Duration { return model.Duration(time.Duration(n) * time.Millisecond) }

// quantile is the q quantile of sorted ds (nearest rank).
func quantile(ds []time.Duration, q float64) time.Duration {
	return ds[int(q*float64(len(ds)-1)+0.5)]
}

func draws(p Profile, n int) []time.Duration {
	src := NewSource(p)
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = src.Draw()
	}
	slices.Sort(out)
	return out
}

// Issue 53 item 6: 10,000 draws of median 200ms, p99 800ms with a fixed
// seed measure a median and p99 each within 5% of the configured, and
// none is above the cap.
func TestDraw_logNormalMatchesItsFigures(t *testing.T) {
	for _, seed := range []int64{1, 7, 42} {
		p := Profile{Endpoint: "GetReward", LogNormal: &LogNormal{Median: ms(200), P99: ms(800)}, Max: ms(1500), Seed: seed}
		ds := draws(p, 10000)
		within := func(name string, got, want time.Duration) {
			if r := float64(got) / float64(want); r < 0.95 || r > 1.05 {
				t.Errorf("seed %d: measured %s %v, configured %v (ratio %.3f, want within 5%%)", seed, name, got, want, r)
			}
		}
		within("median", quantile(ds, 0.5), 200*time.Millisecond)
		within("p99", quantile(ds, 0.99), 800*time.Millisecond)
		if top := ds[len(ds)-1]; top > 1500*time.Millisecond {
			t.Errorf("seed %d: a draw of %v is above the cap 1.5s", seed, top)
		}
		if ds[len(ds)-1] != 1500*time.Millisecond {
			t.Errorf("seed %d: no draw reached the cap (top %v): the tail past it should be cut to it", seed, ds[len(ds)-1])
		}
	}
}

func TestDraw_shapes(t *testing.T) {
	cases := []struct {
		name   string
		p      Profile
		lo, hi time.Duration
	}{
		{"fixed", Profile{Fixed: ms(250)}, 250 * time.Millisecond, 250 * time.Millisecond},
		{"fixed capped", Profile{Fixed: ms(250), Max: ms(100)}, 100 * time.Millisecond, 100 * time.Millisecond},
		{"uniform", Profile{Uniform: &Uniform{Min: ms(100), Max: ms(300)}}, 100 * time.Millisecond, 300 * time.Millisecond},
		{"uniform capped", Profile{Uniform: &Uniform{Min: ms(100), Max: ms(300)}, Max: ms(200)}, 100 * time.Millisecond, 200 * time.Millisecond},
		{"lognormal, no cap but the bound", Profile{LogNormal: &LogNormal{Median: model.Duration(30 * time.Second), P99: model.Duration(MaxDelay)}}, 0, MaxDelay},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.p.Endpoint, c.p.Seed = "GetReward", 3
			ds := draws(c.p, 5000)
			if ds[0] < c.lo || ds[len(ds)-1] > c.hi {
				t.Errorf("draws span %v..%v, want within %v..%v", ds[0], ds[len(ds)-1], c.lo, c.hi)
			}
			if c.p.Uniform != nil && c.p.Max == 0 {
				if m := quantile(ds, 0.5); m < 190*time.Millisecond || m > 210*time.Millisecond {
					t.Errorf("uniform median %v, want about 200ms", m)
				}
			}
		})
	}
}

func TestDraw_seedReproduces(t *testing.T) {
	p := Profile{Endpoint: "GetReward", LogNormal: &LogNormal{Median: ms(200), P99: ms(800)}, Seed: 9}
	a, b := NewSource(p), NewSource(p)
	for i := 0; i < 100; i++ {
		if x, y := a.Draw(), b.Draw(); x != y {
			t.Fatalf("draw %d: %v and %v from one seed", i, x, y)
		}
	}
}

func TestCheck(t *testing.T) {
	cases := []struct {
		name  string
		p     Profile
		field string
		says  string
	}{
		{"fixed", Profile{Endpoint: "GetReward", Fixed: ms(250)}, "", ""},
		{"every endpoint", Profile{Endpoint: "*", LogNormal: &LogNormal{Median: ms(100), P99: ms(400)}, Max: ms(900)}, "", ""},
		{"unknown endpoint", Profile{Endpoint: "GetRewrd", Fixed: ms(1)}, "/endpoint", "did you mean GetReward?"},
		{"no shape", Profile{Endpoint: "GetReward"}, "", "exactly one of fixed, uniform and lognormal"},
		{"two shapes", Profile{Endpoint: "GetReward", Fixed: ms(1), Uniform: &Uniform{Max: ms(2)}}, "", "(it has 2)"},
		{"fixed over the bound", Profile{Endpoint: "GetReward", Fixed: model.Duration(2 * time.Minute)}, "/fixed", "over the bound of 1m0s"},
		{"cap over the bound", Profile{Endpoint: "GetReward", Fixed: ms(1), Max: model.Duration(2 * time.Minute)}, "/max", "write timeout"},
		{"uniform reversed", Profile{Endpoint: "GetReward", Uniform: &Uniform{Min: ms(3), Max: ms(2)}}, "/uniform/max", "not above min"},
		{"p99 below median", Profile{Endpoint: "GetReward", LogNormal: &LogNormal{Median: ms(300), P99: ms(200)}}, "/lognormal/p99", "below the median"},
		{"no median", Profile{Endpoint: "GetReward", LogNormal: &LogNormal{P99: ms(200)}}, "/lognormal/median", "positive median"},
		{"p99 over the bound", Profile{Endpoint: "GetReward", LogNormal: &LogNormal{Median: ms(300), P99: model.Duration(time.Hour)}}, "/lognormal/p99", "over the bound"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Check(c.p, fault.NotAnOperation)
			if c.says == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var ce *CheckError
			if !errors.As(err, &ce) {
				t.Fatalf("err %v, want a CheckError", err)
			}
			if ce.Field != c.field || !strings.Contains(ce.Msg, c.says) {
				t.Errorf("refused at %q: %q; want at %q saying %q", ce.Field, ce.Msg, c.field, c.says)
			}
		})
	}
}

func TestSet_findsTheNarrowestProfile(t *testing.T) {
	s := NewSet([]Profile{
		{Endpoint: "*", Fixed: ms(1)},
		{Endpoint: "GetReward", Fixed: ms(2)},
		{Endpoint: "*", Channel: "acme", Fixed: ms(3)},
		{Endpoint: "GetReward", Channel: "acme", Fixed: ms(4)},
	})
	for _, c := range []struct {
		ep, ch string
		want   time.Duration
	}{
		{"GetReward", "acme", 4 * time.Millisecond},
		{"GetAuthToken", "acme", 3 * time.Millisecond},
		{"GetReward", "other", 2 * time.Millisecond},
		{"GetAuthToken", "other", 1 * time.Millisecond},
	} {
		if got := s.Find(c.ep, c.ch).Draw(); got != c.want {
			t.Errorf("%s on %s: %v, want %v", c.ep, c.ch, got, c.want)
		}
	}
	run := NewSet([]Profile{{Endpoint: "GetReward", Fixed: ms(9)}})
	if got := First(run, s, "GetReward", "acme").Draw(); got != 9*time.Millisecond {
		t.Errorf("the run-time profile should come before the scenario's: %v", got)
	}
	if got := First(nil, s, "GetReward", "acme").Draw(); got != 4*time.Millisecond {
		t.Errorf("no run-time set: %v", got)
	}
	if First(nil, nil, "GetReward", "acme") != nil {
		t.Error("no set at all found a profile")
	}
	if gone := s.Remove("GetReward", "", true); len(gone) != 2 {
		t.Errorf("removed %v, want GetReward's two", gone)
	}
}

// BenchmarkFirst_noProfile is what every call pays with no profile set:
// the run-time set's and the scenario's empty lookups.
func BenchmarkFirst_noProfile(b *testing.B) {
	run, own := NewSet(nil), NewSet(nil)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if First(run, own, "GetReward", "DEMOBANK") != nil {
				b.Fatal("found a profile in empty sets")
			}
		}
	})
}
