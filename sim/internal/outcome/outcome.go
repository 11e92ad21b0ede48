// Package outcome is what an exchange meant under the contract, not its
// HTTP status: a COUPON_EXHAUSTED answered with HTTP 200 (the status-mirror
// switch) is a refusal, "Reward Already Revealed!" too. Metrics, the request
// log, the diagrams and the dashboard all read this one classification
// (journal.Entry.Outcome).
package outcome

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
)

// The outcomes.
const (
	// Success: the service did what was asked.
	Success = "success"
	// Refusal: the service answered, and said no (a failure envelope, a
	// coupon errorCode, status false, a 4xx or 5xx, a reason).
	Refusal = "refusal"
	// Fault: an injected fault fired.
	Fault = "fault"
	// Transport: no answer reached the caller (dropped, the caller gone,
	// a webhook receiver unreachable).
	Transport = "transport"
)

// All is every outcome, in legend order.
var All = []string{Success, Refusal, Fault, Transport}

// Exchange is what classifying reads of an exchange or a webhook attempt.
type Exchange struct {
	Webhook             bool
	Status              int // 0: no answer came
	Reason, Fault, Err  string
	Dropped, ClientGone bool
	Body                []byte // the answer's
}

// Of classifies x and names the coupon errorCode its answer carried;
// facts, when not nil, are x.Body's, read before (Read). It runs when an
// entry is observed or read, never on the request path; it scans the
// answer's bytes and decodes only what may hold a refusal.
func Of(x Exchange, facts *Facts) (kind, errorCode string) {
	if facts == nil {
		f := Facts{ErrorCode: errorCodeOf(x.Body), saysNo: -1}
		facts = &f
	}
	errorCode = facts.ErrorCode
	switch {
	case x.Fault != "":
		return Fault, errorCode
	case x.Dropped || x.ClientGone || x.Status == 0 || (x.Webhook && x.Err != ""):
		return Transport, errorCode
	case x.Webhook:
		var ack struct {
			Status any `json:"status"`
		}
		if x.Status >= 200 && x.Status < 300 && json.Unmarshal(x.Body, &ack) == nil && ack.Status == "OK" {
			return Success, ""
		}
		return Refusal, errorCode
	case x.Status >= 400 || x.Reason != "" || errorCode != "" || facts.says(x.Body):
		return Refusal, errorCode
	}
	return Success, ""
}

// Facts are what classifying reads of an answer's bytes alone: the
// journal keeps them with a repeated answer, so that the same 3 KB are not
// scanned again for each (issue 25).
type Facts struct {
	ErrorCode string
	saysNo    int8 // 1 yes, 0 no, -1 not read yet
}

// Read reads body's facts.
func Read(body []byte) Facts {
	f := Facts{ErrorCode: errorCodeOf(body)}
	if saysNo(body) {
		f.saysNo = 1
	}
	return f
}

// says is whether the answer says no, read from body when not yet read.
func (f *Facts) says(body []byte) bool {
	if f.saysNo < 0 {
		return saysNo(body)
	}
	return f.saysNo == 1
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
