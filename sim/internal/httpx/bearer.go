package httpx

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// TokenChecker checks a bearer token value against the kind an endpoint takes.
type TokenChecker interface {
	Check(value string, want model.TokenKind) (model.Token, error)
}

// BearerToken admits only a request carrying a live token of kind
// (AUTH-1, AUTH-2, TOK-3): the bearer schemes' openers call it first.
// Anything else is HTTP 401 with a body saying why; the contract shows
// only the status, the body is the simulator's reading. The token's
// channel and user are noted for the journal (Outcome).
func BearerToken(c echo.Context, check TokenChecker, kind model.TokenKind) (model.Token, error) {
	h := c.Request().Header.Get(echo.HeaderAuthorization)
	scheme, value, ok := strings.Cut(h, " ")
	var reason string
	switch {
	case h == "":
		reason = "Authorization header is missing"
	case !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(value) == "":
		reason = "Authorization header is not 'Bearer TOKEN'"
	default:
		t, err := check.Check(strings.TrimSpace(value), kind)
		// A token refused (expired, of another kind) still has an owner.
		NoteCaller(c, t.Channel, "", t.VirtualID)
		if err == nil {
			return t, nil
		}
		reason = err.Error()
	}
	return model.Token{}, Unauthorized(reason)
}

// Bearer is the credential of the request's Authorization header when
// its scheme is Bearer, "" otherwise.
func Bearer(c echo.Context) string {
	scheme, value, ok := strings.Cut(c.Request().Header.Get(echo.HeaderAuthorization), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(value)
}

// Unauthorized is the 401 answer of the bearer endpoints.
func Unauthorized(reason string) *Error {
	return &Error{
		Status: http.StatusUnauthorized,
		Body:   map[string]any{"status": false, "message": "Unauthorized: " + reason},
		Reason: reason,
		Header: http.Header{"Www-Authenticate": {`Bearer error="invalid_token"`}},
	}
}
