package sim

import (
	"net/http/pprof"
	"strings"

	"github.com/labstack/echo/v4"
)

// debugPprofPath is where Options.DebugPprof serves Go's profiler.
const debugPprofPath = "/__sim/debug/pprof/"

// debugPprof serves net/http/pprof under debugPprofPath: `make load`
// takes each target's CPU profile from the real process this way.
func debugPprof(c echo.Context) error {
	w, r := c.Response(), c.Request()
	switch name := strings.TrimPrefix(r.URL.Path, debugPprofPath); name {
	case "":
		pprof.Index(w, r)
	case "cmdline":
		pprof.Cmdline(w, r)
	case "profile":
		pprof.Profile(w, r)
	case "symbol":
		pprof.Symbol(w, r)
	case "trace":
		pprof.Trace(w, r)
	default:
		pprof.Handler(name).ServeHTTP(w, r)
	}
	return nil
}
