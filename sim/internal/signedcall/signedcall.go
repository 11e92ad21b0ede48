// Package signedcall is the shared path of every signed-envelope endpoint:
// read the body, check the envelope, find the channel, verify SIGN over
// the base64 BDATA string, decode and validate the payload, apply injected
// faults; and on the way out, seal the answer with the service key. Every
// failure is the contract's bare {STATUS, ERRORSTRING} body.
package signedcall

import (
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
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
	// Faults are rules added at run time (the control API's), consulted
	// before the governing scenario's own faults. nil: none.
	Faults fault.Decider
}

// Call is an opened, verified, decoded request.
type Call struct {
	Op       contract.Op
	Channel  model.Channel
	Scenario *scenario.Scenario
	// NotEligible is set when an injected not-eligible rule fired: the
	// endpoint answers its normal not-eligible outcome.
	NotEligible bool
	Envelope    envelope.Envelope
	BDATA       []byte
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

// ReadBody reads a signed endpoint's body: over 1 MiB is HTTP 413 in the
// bare failure shape, an unreadable body an Invalid Request!.
func ReadBody(c echo.Context, sc *scenario.Scenario) ([]byte, error) {
	body, err := httpx.ReadBody(c)
	if errors.Is(err, httpx.ErrTooLarge) {
		return nil, Failure(sc, http.StatusRequestEntityTooLarge, InvalidRequest+" "+err.Error(), err.Error())
	}
	if err != nil {
		return nil, Invalid(sc, "body could not be read")
	}
	return body, nil
}

// Open reads and checks the request of op, decoding its payload into dst.
func (d *Deps) Open(c echo.Context, op contract.Op, dst any) (*Call, error) {
	sc := d.Channels.Active()
	body, err := ReadBody(c, sc)
	if err != nil {
		return nil, err
	}
	if err := d.Schemas.ValidateJSON(op.Request, body); err != nil {
		return nil, Invalid(sc, "envelope: "+err.Error())
	}
	var env envelope.Envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, Invalid(sc, "envelope: "+err.Error())
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
		return nil, Failure(sc, 0, SignatureMismatch, reason)
	}

	raw, err := envelope.Decode(env.BDATA)
	if err != nil {
		return nil, Invalid(sc, err.Error())
	}
	generic, err := schema.DecodeJSON(raw)
	if err != nil {
		return nil, Invalid(sc, "BDATA is "+err.Error())
	}
	if err := d.Schemas.Validate(op.RequestBDATA, generic); err != nil {
		return nil, Invalid(sc, "BDATA: "+err.Error())
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return nil, Invalid(sc, "BDATA: "+err.Error())
	}

	call := &Call{Op: op, Channel: ch, Scenario: sc, Envelope: env, BDATA: raw}
	virtualID, _ := generic.(map[string]any)["virtualId"].(string)
	act, fired, err := d.Inject(c, sc, fault.Call{Endpoint: op.Name, Channel: ch.Name, VirtualID: virtualID})
	if err != nil {
		return nil, err
	}
	call.NotEligible = fired && act.Kind == fault.NotEligible
	return call, nil
}

// decide consults the run-time rules, then the scenario's.
func (d *Deps) decide(sc *scenario.Scenario, call fault.Call) (fault.Action, bool) {
	return fault.First(d.Faults, sc.Faults, call)
}

// ApplyFault carries out an injected action on a signed endpoint: the
// generic ones (inject.Generic), then the bare failures of this family.
// A nil error means go on; call.NotEligible tells the endpoint to answer
// its not-eligible outcome, which only it knows how to shape.
func ApplyFault(c echo.Context, sc *scenario.Scenario, act fault.Action) error {
	if stop, err := inject.Generic(c, act); stop {
		return err
	}
	switch act.Kind {
	case fault.MalformedBody:
		return &httpx.Error{Status: http.StatusOK, Body: []byte(`{"STATUS":"FAIL`), Reason: "injected fault: malformed-body"}
	case fault.InternalError:
		return Failure(sc, act.Status, InternalError, "injected fault: internal-error")
	case fault.SignatureMismatch:
		return Failure(sc, act.Status, SignatureMismatch, "injected fault: signature-mismatch")
	}
	return nil
}

// Inject decides whether a fault rule fires for call (run-time rules,
// then the scenario's) and carries it out. fired reports a rule that
// fired and left the answer to the endpoint (a delay, or not-eligible).
func (d *Deps) Inject(c echo.Context, sc *scenario.Scenario, call fault.Call) (act fault.Action, fired bool, err error) {
	act, fired = d.decide(sc, call)
	if !fired {
		return act, false, nil
	}
	return act, true, ApplyFault(c, sc, act)
}

// Reply seals payload with the service key; the answer's CHANNELID is the
// service's own identifier (ENV-3).
func (d *Deps) Reply(c echo.Context, call *Call, payload any) error {
	env, err := envelope.Seal(d.ServiceKey, call.Scenario.Service.ChannelID, payload)
	if err != nil {
		return Failure(call.Scenario, 0, InternalError, "sealing the answer: "+err.Error())
	}
	return c.JSON(http.StatusOK, env)
}
