// Package inject carries out the fault actions whose effect is the same
// on every endpoint: a bare HTTP status, a delay, a dropped connection.
// Actions with a contract shape (Internal Error!, coupon error codes, not
// eligible) are rendered by each endpoint in its own shape.
package inject

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
)

// Generic applies act if it is endpoint-agnostic. stop is true when the
// request is over (err is then its answer); false means the endpoint goes
// on: to answer normally after a delay, or to render act itself.
func Generic(c echo.Context, act fault.Action) (stop bool, err error) {
	httpx.NoteFault(c, act.Kind) // named in the journal whatever the answer
	switch act.Kind {
	case fault.HTTPStatus:
		return true, &httpx.Error{Status: act.Status, Body: []byte(http.StatusText(act.Status)), Reason: "injected fault: http-status"}
	case fault.DropConnection:
		return true, httpx.Drop(c, "injected fault: drop-connection")
	case fault.Delay:
		if err := httpx.Wait(c.Request().Context(), act.Delay.D()); err != nil {
			return true, err
		}
	}
	return false, nil
}

// Shapes are a plain-JSON endpoint's own answers to the actions that have
// a contract shape.
type Shapes struct {
	// Internal is the body of the platform failure (HTTP 500 unless the
	// rule gives a status).
	Internal any
	// NotEligible answers the endpoint's not-eligible outcome; nil when
	// the endpoint has none.
	NotEligible func() error
	// SignatureMismatch answers the endpoint's authentication failure
	// (the bearer 401, the SDK's error shape): every endpoint has one.
	SignatureMismatch func() error
}

// Plain carries out act on a plain-JSON endpoint: the generic actions,
// Internal Error, a body cut mid-JSON, signature-mismatch and not-eligible
// in the endpoint's shapes. stop means the answer is given.
func Plain(c echo.Context, act fault.Action, sh Shapes) (stop bool, err error) {
	if stop, err := Generic(c, act); stop {
		return true, err
	}
	switch act.Kind {
	case fault.InternalError:
		status := act.Status
		if status == 0 {
			status = http.StatusInternalServerError
		}
		return true, &httpx.Error{Status: status, Body: sh.Internal, Reason: "injected fault: internal-error"}
	case fault.MalformedBody:
		return true, &httpx.Error{Status: http.StatusOK, Body: []byte(`{"status":false,"mess`), Reason: "injected fault: malformed-body"}
	case fault.SignatureMismatch:
		if sh.SignatureMismatch != nil {
			return true, sh.SignatureMismatch()
		}
	case fault.NotEligible:
		if sh.NotEligible != nil {
			return true, sh.NotEligible()
		}
	}
	return false, nil
}
