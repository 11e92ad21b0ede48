package control

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"
)

// DecodePathParams unescapes every path parameter of a control route
// before its handler reads it. echo routes on the escaped path when the
// request has one, and leaves its parameters escaped: a fault id a
// client escapes (story:stock-out:DEMOBANK:1 sent as story%3Astock-out...)
// would name no rule. A parameter that is no valid escape is a 400.
func DecodePathParams(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		vals := c.ParamValues()
		if len(vals) == 0 {
			return next(c)
		}
		out := make([]string, len(vals))
		for i, v := range vals {
			d, err := url.PathUnescape(v)
			if err != nil {
				return fail(http.StatusBadRequest, "path: %q is not a valid escaped path segment: %v", v, err)
			}
			out[i] = d
		}
		c.SetParamValues(out...)
		return next(c)
	}
}
