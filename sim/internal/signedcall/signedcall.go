// Package signedcall is the signed envelope's way in and out: the opener
// of the envelope scheme (check the envelope, find the channel, verify
// SIGN over the base64 BDATA string, decode and validate the payload), the
// bare-failure dialect of refusals and injected faults, and, on the way
// out, the answer sealed with the service key. Every failure is the
// contract's bare {STATUS, ERRORSTRING} body.
package signedcall

import (
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/frontdoor"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/inject"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

// ERRORSTRING values. The first two are the contract's own (section 7);
// the third is the simulator's reading for a malformed call, whose shape
// the contract does not show (ENV-6).
const (
	SignatureMismatch = "Signature Mismatch!"
	InternalError     = "Internal Error!"
	InvalidRequest    = "Invalid Request!"
)

// Channels finds a channel and its governing scenario by CHANNELID.
type Channels interface {
	ByChannelID(id string) (model.Channel, *scenario.Scenario, bool)
	Active() *scenario.Scenario
}

// Deps is what the signed path needs.
type Deps struct {
	Schemas    *schema.Set
	ServiceKey *rsa.PrivateKey
	Channels   Channels
}

// FailureBody is the bare unsigned failure body. A struct, not a map, so
// the bytes read exactly {"STATUS":"FAILURE","ERRORSTRING":"..."} as the
// contract prints them.
type FailureBody struct {
	STATUS      string `json:"STATUS"`
	ERRORSTRING string `json:"ERRORSTRING"`
}

// Failure is a bare failure answer. status 0 takes the scenario's
// failureHttpStatus switch.
func Failure(sc *scenario.Scenario, status int, errorString, reason string) *httpx.Error {
	if status == 0 {
		status = sc.Switches.FailureHTTPStatus
	}
	return &httpx.Error{
		Status: status,
		Body:   FailureBody{STATUS: "FAILURE", ERRORSTRING: errorString},
		Reason: reason,
	}
}

// Invalid is the failure for a malformed call: ERRORSTRING names the problem.
func Invalid(sc *scenario.Scenario, detail string) *httpx.Error {
	return Failure(sc, 0, InvalidRequest+" "+detail, detail)
}

// InternalFailure is the bare failure for a failure of the simulator
// itself (a frontdoor.Failure: the door sets its status and reason).
func InternalFailure(contract.Op, *frontdoor.Call) *httpx.Error {
	return &httpx.Error{Body: FailureBody{STATUS: "FAILURE", ERRORSTRING: InternalError}}
}

// ReadFailure is the answer to a body the door could not read: over
// 1 MiB is HTTP 413 in the bare failure shape, an unreadable body an
// Invalid Request!; nil when it was read.
func ReadFailure(sc *scenario.Scenario, readErr error) error {
	if errors.Is(readErr, httpx.ErrTooLarge) {
		return Failure(sc, http.StatusRequestEntityTooLarge, InvalidRequest+" "+readErr.Error(), readErr.Error())
	}
	if readErr != nil {
		return Invalid(sc, "body could not be read")
	}
	return nil
}

// Open is the signed envelope's way in (a frontdoor.Opener): it checks
// the envelope, finds the channel by CHANNELID, verifies SIGN over the
// base64 BDATA string, and decodes and validates the payload into dst.
func (d *Deps) Open(c echo.Context, op contract.Op, body []byte, readErr error, dst any) (*frontdoor.Call, error) {
	sc := d.Channels.Active()
	if err := ReadFailure(sc, readErr); err != nil {
		return nil, err
	}
	env, err := d.Envelope(sc, op, body)
	if err != nil {
		return nil, err
	}

	ch, chSc, ok := d.Channels.ByChannelID(env.CHANNELID)
	if !ok {
		reason := fmt.Sprintf("unknown CHANNELID %q", env.CHANNELID)
		if sc.Switches.UnknownChannel == scenario.UnknownChannelDescribe {
			return nil, Invalid(sc, reason)
		}
		return nil, Failure(sc, 0, SignatureMismatch, reason)
	}
	sc = chSc
	if err := envelope.Verify(ch.PublicKey, env.BDATA, env.SIGN); err != nil {
		reason := err.Error()
		if errors.Is(err, envelope.ErrBadSignature) && envelope.SignedOverDecodedJSON(ch.PublicKey, env.BDATA, env.SIGN) {
			reason = "SIGN was made over the decoded JSON; sign the base64 BDATA string itself"
		}
		if ch.KeyOrigin == model.KeyOriginLibrary {
			reason += "; this channel's key was made by the test library: give your service ch.credentials(), or register your own key"
		}
		return nil, Failure(sc, 0, SignatureMismatch, reason)
	}
	httpx.NoteAdmitted(c, ch.Name, ch.ChannelID)
	raw, virtualID, err := d.Payload(sc, op, env.BDATA, dst)
	if err != nil {
		return nil, err
	}
	return &frontdoor.Call{Op: op, Channel: ch, Scenario: sc, Envelope: env, BDATA: raw, VirtualID: virtualID}, nil
}

// Envelope decodes the signed envelope body, once, for its schema check
// and its fields.
func (d *Deps) Envelope(sc *scenario.Scenario, op contract.Op, body []byte) (envelope.Envelope, error) {
	var env envelope.Envelope
	doc, err := d.Schemas.DecodeValid(op.Request, body)
	if err == nil {
		err = doc.Into(&env)
	}
	if err != nil {
		return env, Invalid(sc, "envelope: "+err.Error())
	}
	return env, nil
}

// Payload decodes BDATA, validates it against op's payload schema and
// decodes it into dst; virtualID is its virtualId, if any.
func (d *Deps) Payload(sc *scenario.Scenario, op contract.Op, bdata string, dst any) (raw []byte, virtualID string, err error) {
	raw, err = envelope.Decode(bdata)
	if err != nil {
		return nil, "", Invalid(sc, err.Error())
	}
	doc, err := schema.Parse(raw)
	if err != nil {
		return nil, "", Invalid(sc, "BDATA is "+err.Error())
	}
	if err := d.Schemas.Validate(op.RequestBDATA, doc.Value); err != nil {
		return nil, "", Invalid(sc, "BDATA: "+err.Error())
	}
	if err := doc.Into(dst); err != nil {
		return nil, "", Invalid(sc, "BDATA: "+err.Error())
	}
	if fields, ok := doc.Value.(map[string]any); ok {
		virtualID, _ = fields["virtualId"].(string)
	}
	return raw, virtualID, nil
}

// Faults is the signed family's dialect (a frontdoor.Dialect): the
// generic actions (inject.Generic), then the bare failures. not-eligible
// is left to the endpoint, which alone knows its not-eligible answer.
func Faults(c echo.Context, call *frontdoor.Call, act fault.Action) (stop bool, err error) {
	if act.MisSigns() {
		return false, nil // shown by Reply, on the signed answer
	}
	if stop, err := inject.Generic(c, act); stop {
		return true, err
	}
	sc := call.Scenario
	text := func(real string) string { // the rule's own words, else the real outcome's
		if act.Message != "" {
			return act.Message
		}
		return real
	}
	switch act.Kind {
	case fault.MalformedBody:
		return true, &httpx.Error{Status: http.StatusOK, Body: []byte(`{"STATUS":"FAIL`), Reason: "injected fault: malformed-body"}
	case fault.InternalError:
		return true, Failure(sc, act.Status, text(InternalError), "injected fault: internal-error")
	case fault.SignatureMismatch:
		return true, Failure(sc, act.Status, text(SignatureMismatch), "injected fault: signature-mismatch")
	}
	return false, nil
}

// Reply seals payload with the service key; the answer's CHANNELID is the
// service's own identifier (ENV-3).
func (d *Deps) Reply(c echo.Context, call *frontdoor.Call, payload any) error {
	env, err := envelope.Seal(d.ServiceKey, call.Scenario.Service.ChannelID, payload)
	if err == nil && call.Fired && call.Fault.MisSigns() {
		env, err = misSign(c, d.ServiceKey, env, call.Fault.Kind)
	}
	if err != nil {
		return Failure(call.Scenario, 0, InternalError, "sealing the answer: "+err.Error())
	}
	return WriteEnvelope(c, env)
}

// WriteEnvelope answers env as c.JSON does (the same bytes, newline
// included), without reflection; through c.JSON when echo would indent it
// (debug mode, or a query that may ask ?pretty) or a field needs escaping.
func WriteEnvelope(c echo.Context, env envelope.Envelope) error {
	if c.Echo().Debug || c.Request().URL.RawQuery != "" {
		return c.JSON(http.StatusOK, env)
	}
	buf := answerBufs.Get().(*[]byte)
	defer func() {
		if cap(*buf) <= maxPooledAnswer {
			answerBufs.Put(buf) // a Writer keeps no reference to what it is given
		}
	}()
	b, ok := env.AppendJSON((*buf)[:0])
	if !ok {
		return c.JSON(http.StatusOK, env)
	}
	b = append(b, '\n')
	*buf = b
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, b)
}

// answerBufs hold sealed answers while they are written (a few hundred
// bytes; a larger one than maxPooledAnswer is not kept).
var answerBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

const maxPooledAnswer = 64 << 10
