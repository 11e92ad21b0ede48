package jsonw

import (
	"bytes"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/golden"
)

// pieces are strings the answers carry, and the ones encoding/json
// escapes or replaces.
var pieces = []string{"", "DEMOBANK", "Offer <1> & more", "a\"b\\c", "\b\f\n\r\t\x00\x1f\x7f", "\u2028\u2029", "é€😀",
	"\xff", "\xe6\x97", "\xed\xa0\x80", "/", "https://rewardsim.invalid/go?a=1&b=2", " ", "\ufffd"}

// Every string survives AppendString as encoding/json writes it, one
// piece at a time and byte by byte through all the runes below U+3000.
func TestAppendString(t *testing.T) {
	var all []string
	all = append(all, pieces...)
	for r := rune(0); r < 0x3000; r++ {
		all = append(all, "x"+string(r)+"y")
	}
	for b := range 256 {
		all = append(all, string([]byte{byte(b)}))
	}
	for _, s := range all {
		want := golden.Encode(t, s)
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
		if got := AppendString(nil, []byte(s)); !bytes.Equal(got, want) {
			t.Errorf("%q as bytes: got %s, want %s", s, got, want)
		}
	}
}
