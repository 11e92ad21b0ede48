package sim

import (
	"net/http"
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

// debugStorePath is where Options.DebugPprof serves what the two bbolt
// files have written: `make load` reads it before and after each target
// for the pages written per exchange.
const debugStorePath = "/__sim/debug/store"

// debugStore answers the state file's and the journal's write counters.
func (s *Sim) debugStore(c echo.Context) error {
	st, commits := s.store.Written()
	type file struct {
		Pages, Bytes, Writes int64
		Commits              int64 `json:",omitempty"`
	}
	ans := struct{ State, Journal file }{
		State: file{Pages: st.Pages, Bytes: st.Bytes, Writes: st.Writes, Commits: commits},
	}
	if s.journal != nil {
		j := s.journal.Written()
		ans.Journal = file{Pages: j.Pages, Bytes: j.Bytes, Writes: j.Writes}
	}
	return c.JSON(http.StatusOK, ans)
}
