package report

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

// ENV-3 from the app's side: an app that verifies SIGN refuses an answer
// whose signature does not verify, so it never uses what that answer
// handed out. The journal keeps every credential as the same fingerprint
// in the answer and in the calls that use it, so a use is visible.

// misSigned is a mis-signed answer that handed out a credential.
type misSigned struct {
	seq   uint64
	fault string
}

var fingerprint = regexp.MustCompile(`~fp:[0-9a-f]+`)

// unverifiedAnswer remembers the credentials (referenceKey, token,
// sessionId) of answers an answer-sign fault broke, and flags a later
// call that carries one.
func (f *fold) unverifiedAnswer(e *journal.Entry) {
	if e.Kind != journal.KindExchange {
		return
	}
	var used []string
	for _, v := range e.Request.Header {
		used = append(used, fingerprint.FindAllString(v, -1)...)
	}
	used = append(used, fingerprint.FindAllString(e.Query, -1)...)
	used = append(used, fingerprint.FindAllString(string(e.Request.Body), -1)...)
	used = append(used, fingerprint.FindAllString(string(e.Request.BDATA), -1)...)
	for _, fp := range used {
		if m, ok := f.misSigned[fp]; ok {
			f.c.add("answer-signature-not-verified", e, fmt.Sprintf("%s %s used a credential handed out in exchange %d, whose answer's SIGN did not verify (injected %s)", e.Method, e.Path, m.seq, m.fault))
			delete(f.misSigned, fp) // one finding per mis-signed credential
		}
	}
	if !strings.HasPrefix(e.Fault, "answer-sign-") {
		return
	}
	// The journal keeps an answer's payload as sent and a request's
	// credentials as fingerprints: compare fingerprints.
	m := body(e.Response.BDATA)
	for _, k := range []string{"referenceKey", "token", "sessionId"} {
		if v, _ := m[k].(string); v != "" {
			if !strings.HasPrefix(v, "~fp:") {
				v = secrets.Fingerprint(v)
			}
			f.misSigned[v] = misSigned{e.Seq, e.Fault}
		}
	}
}
