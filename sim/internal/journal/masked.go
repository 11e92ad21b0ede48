package journal

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"regexp"

	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

var (
	bdataField = regexp.MustCompile(`"BDATA":"[^"]*"`)
	signField  = regexp.MustCompile(`"SIGN":"([^"]*)"`)
)

// Masked is the entry with every credential in its bodies, BDATA, query
// and text replaced by its Fingerprint, as the journal API shows it. The
// same secret keeps the same fingerprint, so a reader can still follow a
// token from the answer that handed it out to the calls that used it.
// mem is the memory of the journal the entry was read from (Secrets).
func (e Entry) Masked(mem *secrets.Memory) Entry {
	mem.LearnSignsIn(e.Request.Body)
	mem.LearnFrom(e.Response.Body, e.Response.Text)
	mem.LearnFrom(e.Response.BDATA, "")
	e.Query = mem.MaskKnown(secrets.MaskQuery(e.Query, secrets.Fingerprint), secrets.Fingerprint)
	e.Path = mem.MaskKnown(e.Path, secrets.Fingerprint)
	e.Request, e.Response = e.Request.masked(mem), e.Response.masked(mem)
	return e
}

func (m Message) masked(mem *secrets.Memory) Message {
	if len(m.Header) > 0 {
		h := make(map[string]string, len(m.Header))
		for k, v := range m.Header {
			h[k] = mem.MaskKnown(v, secrets.Fingerprint)
		}
		m.Header = h
	}
	if masked := mem.MaskKnownBytes(secrets.MaskJSON(m.BDATA)); !bytes.Equal(masked, m.BDATA) {
		// The envelope's base64 BDATA carries the same secrets: it is
		// re-encoded from the masked payload (so its SIGN no longer holds).
		m.BDATA = masked
		m.Body = bdataField.ReplaceAll(m.Body, []byte(`"BDATA":"`+base64.StdEncoding.EncodeToString(masked)+`"`))
	}
	m.Body = keepSign(m.Body, mem.MaskKnownBytes(secrets.MaskJSON(m.Body)))
	m.Text = mem.MaskText(m.Text, secrets.Fingerprint)
	return m
}

// keepSign puts the envelope's own SIGN back into a masked body: a
// signature is masked where it is echoed, not where it signs.
func keepSign(orig, masked json.RawMessage) json.RawMessage {
	o := signField.Find(orig)
	if o == nil || bytes.Equal(orig, masked) {
		return masked
	}
	done := false
	return signField.ReplaceAllFunc(masked, func(b []byte) []byte {
		if done {
			return b
		}
		done = true
		return o
	})
}
