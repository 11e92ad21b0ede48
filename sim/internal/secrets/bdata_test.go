package secrets

import (
	"encoding/base64"
	"testing"
)

// The memo decodes each BDATA once and answers as a fresh decode would,
// undecodable values included.
func TestDecoded(t *testing.T) {
	var m Decoded
	for range 2 {
		for _, c := range []struct {
			src  string
			want string
			ok   bool
		}{{base64.StdEncoding.EncodeToString([]byte(`{"a":1}`)), `{"a":1}`, true}, {"%%%", "", false}, {base64.StdEncoding.EncodeToString([]byte(`{"b":2}`)), `{"b":2}`, true}} {
			raw, ok := m.DecodeString(c.src)
			rawB, okB := m.DecodeBytes([]byte(c.src))
			if ok != c.ok || okB != c.ok || c.ok && (string(raw) != c.want || string(rawB) != c.want) {
				t.Errorf("%q: %q %v / %q %v", c.src, raw, ok, rawB, okB)
			}
		}
	}
	if m.used != 2 {
		t.Errorf("the memo holds %d values, want its two slots", m.used)
	}
}
