package rewards

import (
	"math/rand/v2"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/golden"
)

// The token answers' AppendJSON writes what encoding/json without HTML
// escaping (the envelope's reflective encoding) writes, on generated
// strings that need no escaping, HTML escaping, JSON escaping, or
// replacing (invalid UTF-8).
func TestTokenAnswersAppendJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 3))
	pieces := []string{"", "a", "2026-01-15 11:00:00.000", "3ZRLMFcSPk10yTlJG2un00pBZAAHswWMbRAasypD5OA", "<&>", `"`, `\`, "\n\t\b\f\x00\x1f", "é", "\u2028\u2029", "\xff", "\xe2\x80", "😀", "\x7f"}
	gen := func() string {
		var s string
		for range r.IntN(5) {
			s += pieces[r.IntN(len(pieces))]
		}
		return s
	}
	for range 2000 {
		for _, a := range []interface{ AppendJSON([]byte) []byte }{
			referenceTokenAnswer{ExpireDate: gen(), ReferenceKey: gen()},
			authTokenAnswer{ExpireDate: gen(), Token: gen()},
		} {
			want := golden.Encode(t, a)
			if got := a.AppendJSON([]byte("x")); string(got) != "x"+string(want) {
				t.Fatalf("%#v:\n got %s\nwant %s", a, got[1:], want)
			}
		}
	}
}
