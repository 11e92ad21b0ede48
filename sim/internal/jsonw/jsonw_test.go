package jsonw

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/golden"
)

// pieces are strings the answers carry, and the ones encoding/json
// escapes or replaces.
var pieces = []string{"", "DEMOBANK", "Offer <1> & more", "a\"b\\c", "\b\f\n\r\t\x00\x1f\x7f", "\u2028\u2029", "é€😀",
	"\xff", "\xe6\x97", "\xed\xa0\x80", "/", "https://rewardsim.invalid/go?a=1&b=2", " ", "\ufffd"}

// Every string survives AppendString as encoding/json writes it, one
// piece at a time, byte by byte through all the runes below U+3000, each
// byte value at each place of a long string, and long mixes of pieces.
func TestAppendString(t *testing.T) {
	var all []string
	all = append(all, pieces...)
	for r := rune(0); r < 0x3000; r++ {
		all = append(all, "x"+string(r)+"y")
	}
	for b := range 256 {
		all = append(all, string([]byte{byte(b)}))
		// Every byte at every place of strings longer than the 8 bytes
		// tested at once (plain8), and the plain bytes around it.
		for at := range 19 {
			long := []byte("abcdefghijklmnopqrs")
			long[at] = byte(b)
			all = append(all, string(long), string(long[:at+1]))
		}
	}
	// Long strings of the pieces in random order.
	r := rand.New(rand.NewPCG(25, 3))
	for range 3000 {
		var s strings.Builder
		for range r.IntN(12) {
			s.WriteString(pieces[r.IntN(len(pieces))])
		}
		all = append(all, s.String())
	}
	for _, s := range all {
		want := golden.Encode(t, s)
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
		if got := AppendString(nil, []byte(s)); !bytes.Equal(got, want) {
			t.Errorf("%q as bytes: got %s, want %s", s, got, want)
		}
		// Verbatim says exactly when the quotes hold s as it is.
		if got, want := Verbatim(s), string(want) == `"`+s+`"`; got != want || Verbatim([]byte(s)) != want {
			t.Errorf("Verbatim(%q) = %v, want %v", s, got, want)
		}
	}
}

// BenchmarkAppendString: a listing's strings, plain ASCII, of an offer's
// lengths.
func BenchmarkAppendString(b *testing.B) {
	s := "Half price on any handcrafted beverage at participating stores."
	b.SetBytes(int64(len(s)))
	var buf []byte
	for b.Loop() {
		buf = AppendString(buf[:0], s)
	}
}
