// Package jsonw writes JSON by hand, byte for byte as the simulator's
// serializer (encoding/json without HTML escaping) writes it, for the
// answers of the busiest endpoints: reflection was a fifth of the
// listing's CPU (issue 25). Each writer's test compares it with
// encoding/json.
package jsonw

import "unicode/utf8"

// jsonPlain is the ASCII bytes encoding/json writes as they are (no HTML
// escaping): printable, DEL included, but for `"` and `\`.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendString appends s as a JSON string the way encoding/json does
// without HTML escaping: `"` and `\` and control characters escaped (\b,
// \f, \n, \r, \t short), invalid UTF-8 as \ufffd, U+2028 and U+2029 as
// \u2028 and \u2029, everything else as it is.
func AppendString[S []byte | string](b []byte, s S) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if i = skipPlain8(s, i); i == len(s) {
			break
		}
		if jsonPlain[s[i]] {
			i++
			continue
		}
		if c := s[i]; c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Verbatim reports whether AppendString writes s as it is between its
// quotes: no byte escaped, nothing replaced. A card's offer strings are
// tested once, when the card is stored, so the listing copies them
// instead of scanning them on every call (issue 25).
func Verbatim[S []byte | string](s S) bool {
	for i := 0; i < len(s); {
		if i = skipPlain8(s, i); i == len(s) {
			return true
		}
		if jsonPlain[s[i]] {
			i++
			continue
		}
		if s[i] < utf8.RuneSelf {
			return false
		}
		r, size := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += size
	}
	return true
}

// AppendStringKnown is AppendString, told whether s is Verbatim: then s
// is copied between quotes without being scanned.
func AppendStringKnown[S []byte | string](b []byte, s S, verbatim bool) []byte {
	if verbatim {
		return append(append(append(b, '"'), s...), '"')
	}
	return AppendString(b, s)
}

// skipPlain8 returns the index from i on of the first 8 bytes of s that
// are not all written as they are (jsonPlain), or of the last few, testing
// 8 at once: most of an answer's strings are plain ASCII, and a byte at a
// time was most of the listing's rendering. Each test is exact for "some
// byte is": below 0x20, 0x80 or above, '"', '\\' (the bit tricks of "Bit
// Twiddling Hacks", haszero and hasless).
func skipPlain8[S []byte | string](s S, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		_ = s[i+7] // one bounds check for the eight
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		control := (w - ones*0x20) &^ w
		quote := w ^ ones*'"'
		backslash := w ^ ones*'\\'
		if (control|w|(quote-ones)&^quote|(backslash-ones)&^backslash)&highs != 0 {
			break
		}
	}
	return i
}
