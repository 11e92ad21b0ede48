package journal

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/httpx"
)

// Kinds of entries.
const (
	KindExchange = "exchange" // a request to one of the public hosts and its answer
	KindWebhook  = "webhook"  // an outbound webhook attempt to a publisher
)

// FaultPrefix starts the reason header of every injected fault.
const FaultPrefix = "injected fault: "

// Entry is one journaled exchange or webhook attempt.
type Entry struct {
	Seq  uint64 `json:"seq"`
	Kind string `json:"kind"`
	// At is the simulated time the request arrived (or the attempt started).
	At time.Time `json:"at"`
	// LatencyMs is wall-clock time from request to answer.
	LatencyMs float64 `json:"latencyMs"`
	// Listener is the listener that served it: all, rewards, bank or
	// hotdeals. Host is the contract host of the endpoint, when known.
	Listener string `json:"listener,omitempty"`
	Host     string `json:"host,omitempty"`
	// Endpoint is the operation name from the contract table, when the
	// path is one; otherwise empty (tracking, unknown paths).
	Endpoint string `json:"endpoint,omitempty"`
	Method   string `json:"method"`
	// Path is the request path; for a webhook attempt, the target URL.
	Path  string `json:"path"`
	Query string `json:"query,omitempty"`
	// Channel (its name), ChannelID and VirtualID are whom the call was
	// for, as its way in found them (httpx.Outcome).
	Channel   string  `json:"channel,omitempty"`
	ChannelID string  `json:"channelId,omitempty"`
	VirtualID string  `json:"virtualId,omitempty"`
	Request   Message `json:"request"`
	Response  Message `json:"response"`
	Status    int     `json:"status"`
	// Reason is the X-Rewardsim-Reason header of the answer; Fault the
	// injected fault that fired, if any (the reason after "injected fault: ").
	Reason string `json:"reason,omitempty"`
	Fault  string `json:"fault,omitempty"`
	// Limit is what the channel's capacity limit did to the call, when
	// it held it (docs/limits.md).
	Limit *Limit `json:"limit,omitempty"`
	// ClientGone: the caller went away (timed out) before the answer.
	ClientGone bool `json:"clientGone,omitempty"`
	// Dropped: the simulator closed the connection unanswered (an
	// injected drop); Status is then 0.
	Dropped bool `json:"dropped,omitempty"`
	// Unadmitted: the call was refused before any credentials of Channel
	// admitted it (a signature, an appKey/secKey, a token the channel was
	// given), so Channel is only what the call said: verify does not
	// count it as the channel's call.
	Unadmitted bool `json:"unadmitted,omitempty"`
	// Error is a transport error of a webhook attempt.
	Error string `json:"error,omitempty"`
	// Outcome is what the answer meant under the contract (success,
	// refusal, fault, transport; package outcome); ErrorCode the coupon
	// errorCode the answer carried, if any.
	Outcome   string `json:"outcome"`
	ErrorCode string `json:"errorCode,omitempty"`
}

// Limit is a call its channel's capacity limit held: admitted after
// waiting WaitedMs, or Refused after it; Reason is what held it
// (in-flight, rate or queue).
type Limit struct {
	Refused  bool    `json:"refused"`
	Reason   string  `json:"reason"`
	WaitedMs float64 `json:"waitedMs"`
}

// limitOf reads an answer's limit header (nil: none).
func limitOf(v string) *Limit {
	n, ok := httpx.ParseLimitNote(v)
	if !ok {
		return nil
	}
	return &Limit{Refused: n.Refused, Reason: n.Reason, WaitedMs: float64(n.Waited.Microseconds()) / 1000}
}

// Message is one side of an exchange. Secrets in headers are replaced by
// a fingerprint (see Mask); bodies are kept as sent, up to MaxBodyKept.
type Message struct {
	Header map[string]string `json:"header,omitempty"`
	// Body is the body when it is JSON; Text when it is not.
	Body json.RawMessage `json:"body,omitempty"`
	Text string          `json:"text,omitempty"`
	// BDATA is the decoded payload of a signed envelope.
	BDATA     json.RawMessage `json:"bdata,omitempty"`
	Truncated bool            `json:"truncated,omitempty"`
}

// MaxBodyKept bounds each body kept in the journal (64 KiB).
const MaxBodyKept = 64 << 10

func compact(b []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return append(json.RawMessage(nil), b...)
	}
	return buf.Bytes()
}

// decodedBDATA returns the decoded payload when body is a signed envelope
// whose BDATA is base64 of JSON.
func decodedBDATA(body []byte) json.RawMessage {
	var env struct {
		BDATA *string `json:"BDATA"`
	}
	if json.Unmarshal(body, &env) != nil || env.BDATA == nil {
		return nil
	}
	raw, err := base64.StdEncoding.DecodeString(*env.BDATA)
	if err != nil || !shallow(raw) || !json.Valid(raw) {
		return nil
	}
	return compact(raw)
}
