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
	Envelope envelope.Envelope
	BDATA    []byte
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

// Open reads and checks the request of op, decoding its payload into dst.
func (d *Deps) Open(c echo.Context, op contract.Op, dst any) (*Call, error) {
	sc := d.Channels.Active()
	body, err := httpx.ReadBody(c)
	if errors.Is(err, httpx.ErrTooLarge) {
		return nil, Failure(sc, http.StatusRequestEntityTooLarge, InvalidRequest+" body is larger than 1 MiB", err.Error())
	}
	if err != nil {
		return nil, Invalid(sc, "body could not be read")
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
	if act, fired := d.decide(sc, fault.Call{Endpoint: op.Name, Channel: ch.Name, VirtualID: virtualID}); fired {
		if err := applyFault(c, sc, act); err != nil {
			return nil, err
		}
	}
	return call, nil
}

// decide consults the run-time rules, then the scenario's.
func (d *Deps) decide(sc *scenario.Scenario, call fault.Call) (fault.Action, bool) {
	return fault.First(d.Faults, sc.Faults, call)
}

// applyFault renders an injected failure, or waits out an injected delay.
func applyFault(c echo.Context, sc *scenario.Scenario, act fault.Action) error {
	ctx := c.Request().Context()
	switch act.Kind {
	case fault.MalformedBody:
		return &httpx.Error{Status: http.StatusOK, Body: []byte(`{"STATUS":"FAIL`), Reason: "injected fault: malformed-body"}
	case fault.DropConnection:
		return httpx.Drop(c, "injected fault: drop-connection")
	case fault.InternalError:
		return Failure(sc, act.Status, InternalError, "injected fault: internal-error")
	case fault.SignatureMismatch:
		return Failure(sc, act.Status, SignatureMismatch, "injected fault: signature-mismatch")
	case fault.HTTPStatus:
		return &httpx.Error{Status: act.Status, Body: []byte(http.StatusText(act.Status)), Reason: "injected fault: http-status"}
	case fault.Delay:
		return httpx.Wait(ctx, act.Delay.D())
	}
	return nil
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
