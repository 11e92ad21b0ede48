package fault

// Answer mis-signing kinds: a signed endpoint gives its normal answer with
// SIGN broken, so a publisher can test that its app verifies the
// signature of what it is told before it trusts it (ENV-2). Each is
// shown only on an answer that is signed (FetchRewardInfo's is unless
// switches.cards.fetchAnswerSigned is false; a bare failure never is).
const (
	// AnswerSignOtherBytes: SIGN by the service key, over the decoded
	// JSON instead of the base64 BDATA string (other bytes).
	AnswerSignOtherBytes = "answer-sign-other-bytes"
	// AnswerSignOtherKey: SIGN over the BDATA string, by a key that is
	// not the service's.
	AnswerSignOtherKey = "answer-sign-other-key"
	// AnswerSignAbsent: the answer carries no SIGN.
	AnswerSignAbsent = "answer-sign-absent"
)

// MisSigns reports whether the action breaks the signature of a signed
// answer (the endpoint answers, then the signature is wrong).
func (a Action) MisSigns() bool {
	return a.Kind == AnswerSignOtherBytes || a.Kind == AnswerSignOtherKey || a.Kind == AnswerSignAbsent
}
