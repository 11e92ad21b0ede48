package bank

import (
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/golden"
)

// sessionAnswer's AppendJSON writes what encoding/json without HTML
// escaping (the envelope's reflective encoding) writes, for every
// string made of two of the pieces below: plain, HTML-escaped by
// default, JSON-escaped, replaced (invalid UTF-8).
func TestSessionAnswerAppendJSON(t *testing.T) {
	pieces := []string{"", "S-1f3a9c", "<&>", `"`, `\`, "\n\t\b\f\x00\x1f", "é", "\u2028\u2029", "\xff", "\xe2\x80", "😀", "\x7f"}
	for _, p := range pieces {
		for _, q := range pieces {
			a := sessionAnswer{SessionID: p + q}
			want := golden.Encode(t, a)
			if got := a.AppendJSON([]byte("x")); string(got) != "x"+string(want) {
				t.Fatalf("%q:\n got %s\nwant %s", a.SessionID, got[1:], want)
			}
		}
	}
}
