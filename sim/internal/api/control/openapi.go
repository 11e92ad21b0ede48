package control

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// RegisterOpenAPI serves the OpenAPI document at /__sim/openapi.json. Like
// health it needs no control token: it describes the public surface only,
// and publishers import it into their tools.
func RegisterOpenAPI(e *echo.Echo, doc func() ([]byte, error)) {
	e.GET("/__sim/openapi.json", func(c echo.Context) error {
		data, err := doc()
		if err != nil {
			return err
		}
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, data)
	})
}
