package control

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// OpenAPIDoc is GET /__sim/openapi.json. Like health it needs no control
// token: it describes the public surface only, and publishers import it
// into their tools.
func (a *API) OpenAPIDoc(c echo.Context) error {
	data, err := a.o.OpenAPI()
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, data)
}

// OpenAPIControlDoc is GET /__sim/openapi-control.json: the control API
// itself, for generators (no token, as openapi.json).
func (a *API) OpenAPIControlDoc(c echo.Context) error {
	data, err := a.o.OpenAPIControl()
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, data)
}
