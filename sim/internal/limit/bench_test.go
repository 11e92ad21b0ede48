package limit

import (
	"context"
	"testing"
)

// The cost a call pays in the front door: with no limit anywhere (the
// baseline every box without one pays), on a box where another channel
// has one, and admitted and released under a limit of its own.
func BenchmarkSet_admit(b *testing.B) {
	ctx := context.Background()
	for _, bc := range []struct {
		name  string
		setup func(*Set)
		cfg   Config
	}{
		{"no limit on the box", func(*Set) {}, Config{}},
		{"another channel limited", func(s *Set) { s.Override("OTHER", Config{InFlight: 1}) }, Config{}},
		{"own limit, room", func(*Set) {}, Config{InFlight: 1 << 20, Rate: MaxRate, Burst: MaxBurst}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var s Set
			bc.setup(&s)
			b.ReportAllocs()
			for b.Loop() {
				t, err := s.Admit(ctx, "DEMOBANK", bc.cfg)
				if err != nil {
					b.Fatal(err)
				}
				t.Release()
			}
		})
	}
}
