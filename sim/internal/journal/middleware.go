package journal

import (
	"bytes"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/httpx"
)

// Middleware journals every exchange that passes through e (matched or
// not, so calls to unbuilt paths such as RegisterEvent are recorded too).
// listener names the listener (all, rewards, bank, hotdeals). Errors are
// rendered here, through e's error handler, so the answer is captured.
func (j *Journal) Middleware(listener string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if j == nil || j.opts.Disabled {
				return next(c)
			}
			req := c.Request()
			at, start := j.opts.Clock.Now(), j.opts.Wall.Now()
			r := &Exchange{At: at, WallAt: start, Listener: listener, Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery}
			if req.Body != nil && req.Body != http.NoBody {
				r.RequestBody, r.RequestTrunc = PeekBody(req)
			}
			// Numbered as it arrives: the journal's order is the order
			// requests came in, and the answer says its number.
			rec := &recorder{ResponseWriter: c.Response().Writer, j: j, seq: j.next.Add(1)}
			c.Response().Header().Set(SeqHeader, formatSeq(rec.seq))
			c.Response().Writer = rec
			defer func() {
				if rec.answered {
					j.queued(rec.seq) // after the hand-off below, or on a panic
				}
			}()
			if err := next(c); err != nil {
				c.Error(err)
			}
			r.Latency = j.opts.Wall.Now().Sub(start)
			r.Status = c.Response().Status
			out := httpx.OutcomeOf(c)
			r.Fault, r.Dropped = out.Fault, out.Dropped // answers may not carry them (a drop, a delay)
			if r.Dropped {
				r.Status = 0 // no answer was given
			}
			r.ClientGone = !r.Dropped && req.Context().Err() != nil
			r.RequestHeader = req.Header.Clone()
			r.ResponseHeader = c.Response().Header().Clone()
			r.ResponseBody, r.ResTrunc = rec.buf.Bytes(), rec.trunc
			r.Seq = rec.seq
			j.enqueue(item{raw: r})
			return nil
		}
	}
}

// PeekBody reads up to MaxBodyKept bytes of the body for the journal and
// puts them back in front of the rest, so the handler reads the body
// exactly as sent (its own size limit included).
func PeekBody(req *http.Request) ([]byte, bool) {
	buf := make([]byte, 0, 1024)
	w := bytes.NewBuffer(buf)
	n, _ := io.CopyN(w, req.Body, MaxBodyKept+1)
	data := w.Bytes()
	req.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(data), req.Body), req.Body}
	if n > MaxBodyKept {
		return data[:MaxBodyKept:MaxBodyKept], true
	}
	return data, false
}

// recorder keeps a copy of the first MaxBodyKept bytes of the answer.
type recorder struct {
	http.ResponseWriter
	buf      bytes.Buffer
	trunc    bool
	j        *Journal
	seq      uint64 // the exchange's number (SeqHeader)
	answered bool   // its answer has started: pending until handed over
}

// WriteHeader marks the exchange pending as its answer starts (Settle).
func (w *recorder) WriteHeader(code int) {
	if !w.answered {
		w.answered = true
		w.j.pend(w.seq)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recorder) Write(p []byte) (int, error) {
	if room := MaxBodyKept - w.buf.Len(); room > 0 {
		if len(p) > room {
			w.buf.Write(p[:room])
			w.trunc = true
		} else {
			w.buf.Write(p)
		}
	} else if len(p) > 0 {
		w.trunc = true
	}
	return w.ResponseWriter.Write(p)
}

func (w *recorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
