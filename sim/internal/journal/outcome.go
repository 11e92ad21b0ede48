package journal

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
)

// Contract outcomes of an entry: what it meant under the contract, not
// its HTTP status. A COUPON_EXHAUSTED answered with HTTP 200 (the
// status-mirror switch) is a refusal, "Reward Already Revealed!" too.
// Metrics, the request log, the diagrams and the dashboard all read this
// one classification (Entry.Outcome).
const (
	// OutcomeSuccess: the service did what was asked.
	OutcomeSuccess = "success"
	// OutcomeRefusal: the service answered, and said no (a failure
	// envelope, a coupon errorCode, status false, a 4xx or 5xx, a reason).
	OutcomeRefusal = "refusal"
	// OutcomeFault: an injected fault fired.
	OutcomeFault = "fault"
	// OutcomeTransport: no answer reached the caller (dropped, the caller
	// gone, a webhook receiver unreachable).
	OutcomeTransport = "transport"
)

// Outcomes is every outcome, in legend order.
var Outcomes = []string{OutcomeSuccess, OutcomeRefusal, OutcomeFault, OutcomeTransport}

// outcome classifies r and names the coupon errorCode its answer
// carried. It runs when an entry is observed or read, never on the
// request path; it scans the answer's bytes and decodes only what may
// hold a refusal.
func (r *record) outcome() (kind, errorCode string) {
	body := r.ResBody
	if r.hasFacts {
		errorCode = r.facts.errorCode
	} else {
		errorCode = errorCodeOf(body)
	}
	switch {
	case r.Fault != "":
		return OutcomeFault, errorCode
	case r.Dropped || r.ClientGone || r.Status == 0 || (r.Kind == KindWebhook && r.Error != ""):
		return OutcomeTransport, errorCode
	case r.Kind == KindWebhook:
		var ack struct {
			Status any `json:"status"`
		}
		if r.Status >= 200 && r.Status < 300 && json.Unmarshal(body, &ack) == nil && ack.Status == "OK" {
			return OutcomeSuccess, ""
		}
		return OutcomeRefusal, errorCode
	case r.Status >= 400 || r.Reason != "" || errorCode != "" || r.saysNo():
		return OutcomeRefusal, errorCode
	}
	return OutcomeSuccess, ""
}

func (r *record) saysNo() bool {
	if r.hasFacts {
		return r.facts.saysNo
	}
	return saysNo(r.ResBody)
}

// errorCodeOf is the coupon errorCode an answer carries.
func errorCodeOf(body []byte) string {
	if len(body) > 0 && body[0] == '{' && bytes.Contains(body, []byte(`"errorCode"`)) {
		var b struct {
			ErrorCode string `json:"errorCode"`
		}
		_ = json.Unmarshal(body, &b)
		return b.ErrorCode
	}
	return ""
}

// answerFacts are what the writer reads of an answer's bytes alone, kept
// with a repeated answer in the learn memo so that the same 3 KB are not
// scanned again for each (issue 25).
type answerFacts struct {
	errorCode string
	saysNo    bool
}

func factsOf(body []byte) answerFacts {
	return answerFacts{errorCode: errorCodeOf(body), saysNo: saysNo(body)}
}

// saysNo: a bare failure {STATUS: FAILURE}, or an answer (plain or the
// BDATA of a signed one) with status false. It scans bytes: the journal's
// writer classifies every entry, and most answers are plain successes.
func saysNo(body []byte) bool {
	if len(body) == 0 || body[0] != '{' {
		return false
	}
	if bytes.Contains(body, []byte(`"FAILURE"`)) || statusFalse(body) {
		return true
	}
	_, rest, ok := bytes.Cut(body, []byte(`"BDATA":"`))
	if !ok {
		return false
	}
	enc, _, ok := bytes.Cut(rest, []byte(`"`))
	if !ok {
		return false
	}
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(enc)))
	n, err := base64.StdEncoding.Decode(raw, enc)
	return err == nil && statusFalse(raw[:n])
}

// statusFalse: a JSON object whose status is false, written compactly or
// with spaces.
func statusFalse(b []byte) bool {
	i := bytes.Index(b, []byte(`"status"`))
	if i < 0 {
		return false
	}
	rest := bytes.TrimLeft(b[i+len(`"status"`):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return false
	}
	return bytes.HasPrefix(bytes.TrimLeft(rest[1:], " \t\r\n"), []byte("false"))
}
