package secrets

import "encoding/base64"

// Decoded decodes an envelope's base64 BDATA once for a journal writer's
// several readings of one exchange (learning its credentials, its
// identity, what its answer hands out), which each found the same value.
// Its two slots hold a request's and an answer's; a nil memo decodes
// every time.
// The decoded bytes are only read.
type Decoded struct {
	src  [2]string
	out  [2][]byte
	ok   [2]bool
	used int
}

// DecodeString is s decoded, and whether it was base64.
func (m *Decoded) DecodeString(s string) ([]byte, bool) {
	if m == nil {
		raw, err := base64.StdEncoding.DecodeString(s)
		return raw, err == nil
	}
	for i := range m.used {
		if m.src[i] == s {
			return m.out[i], m.ok[i]
		}
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	m.keep(s, raw, err == nil)
	return raw, err == nil
}

// DecodeBytes is v decoded, and whether it was base64.
func (m *Decoded) DecodeBytes(v []byte) ([]byte, bool) {
	if m == nil {
		raw, err := base64.StdEncoding.AppendDecode(nil, v)
		return raw, err == nil
	}
	for i := range m.used {
		if m.src[i] == string(v) {
			return m.out[i], m.ok[i]
		}
	}
	raw, err := base64.StdEncoding.AppendDecode(nil, v)
	m.keep(string(v), raw, err == nil)
	return raw, err == nil
}

// keep fills a free slot; beyond two values it keeps nothing.
func (m *Decoded) keep(s string, raw []byte, ok bool) {
	if m.used == len(m.src) {
		return
	}
	m.src[m.used], m.out[m.used], m.ok[m.used] = s, raw, ok
	m.used++
}
