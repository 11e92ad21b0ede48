package journal

import (
	"bytes"
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/park"
	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

// Middleware journals every exchange that passes through e (matched or
// not, so calls to unbuilt paths such as RegisterEvent are recorded too).
// listener names the listener (all, rewards, bank, hotdeals). Errors are
// rendered here, through e's error handler, so the answer is captured.
func (j *Journal) Middleware(listener string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if j == nil || j.opts.Disabled {
				if err := next(c); !errors.Is(err, park.ErrParked) {
					return err
				}
				return nil
			}
			req := c.Request()
			// Numbered as it arrives: the journal's order is the order
			// requests came in, and the answer says its number. A call
			// read again after its latency draw (park) keeps its first
			// reading's number and times.
			a := park.Arrival{At: j.opts.Clock.Now(), WallAt: j.opts.Wall.Now()}
			if pc := park.From(req.Context()); pc != nil && pc.Seq != 0 {
				a = pc.Arrival
			} else {
				a.Seq = j.next.Add(1)
			}
			out := httpx.OutcomeOf(c)
			out.Arrival = a
			r := &Exchange{At: a.At, WallAt: a.WallAt, Listener: listener, Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery}
			if req.Body != nil && req.Body != http.NoBody {
				r.RequestBody, r.RequestTrunc = httpx.PeekBody(req, MaxBodyKept)
			}
			rec := &recorder{ResponseWriter: c.Response().Writer, j: j, seq: a.Seq, out: out}
			c.Response().Header().Set(SeqHeader, formatSeq(rec.seq))
			c.Response().Writer = rec
			defer func() {
				if rec.answered {
					j.queued(rec.seq) // after the hand-off below, or on a panic
				}
			}()
			if err := next(c); errors.Is(err, park.ErrParked) {
				return nil // its second reading is the exchange
			} else if err != nil {
				c.Error(err)
			}
			r.Latency = j.opts.Wall.Now().Sub(a.WallAt)
			r.Status = c.Response().Status
			out = httpx.OutcomeOf(c)
			r.Fault, r.Dropped, r.Unadmitted = out.Fault, out.Dropped, out.Unadmitted
			r.Channel, r.ChannelID, r.VirtualID = out.Channel, out.ChannelID, out.VirtualID
			if r.Dropped {
				r.Status = 0 // no answer was given
			}
			r.ClientGone = !r.Dropped && req.Context().Err() != nil
			r.reqPairs = pairsOf(req.Header)
			r.resPairs = pairsOf(c.Response().Header())
			if rec.buf != nil {
				r.ResponseBody, r.resCopy = rec.buf.Bytes(), rec.buf
			}
			r.ResTrunc = rec.trunc
			r.Seq = rec.seq
			j.enqueue(item{raw: r})
			return nil
		}
	}
}

// answerCopies hold the journal's copies of answers (recorder).
var answerCopies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// releaseCopy puts an answer's copy back once no record reads it; one
// that grew past a kept body's bound is left to the collector.
func releaseCopy(b *bytes.Buffer) {
	if b.Cap() <= 2*MaxBodyKept {
		b.Reset()
		answerCopies.Put(b)
	}
}

// recorder keeps a copy of the first MaxBodyKept bytes of the answer:
// the journal owns what it stores, whoever wrote the answer from which
// buffer. The copy is made in a buffer of answerCopies, which the writer
// puts back once the exchange is stored and observed: a new buffer per
// answer made the listing's 6 KB answer cost it 10% of its throughput
// (docs/performance.md, issue 41).
type recorder struct {
	http.ResponseWriter
	buf      *bytes.Buffer // nil until the answer's first byte
	trunc    bool
	j        *Journal
	seq      uint64 // the exchange's number (SeqHeader)
	answered bool   // its answer has started: pending until handed over
	out      *httpx.Outcome
}

// WriteHeader marks the exchange pending as its answer starts (Settle).
func (w *recorder) WriteHeader(code int) {
	if !w.answered {
		w.answered = true
		w.j.pend(w.seq, caller{w.out.Channel, w.out.ChannelID})
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recorder) Write(p []byte) (int, error) {
	if w.buf == nil && len(p) > 0 {
		w.buf = answerCopies.Get().(*bytes.Buffer)
	}
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

// headerPairs is a header as the middleware copies it: name and value
// (a repeated header's values joined by ", ", as MaskHeader shows them)
// alternating, in one slice.
type headerPairs []string

func pairsOf(h http.Header) headerPairs {
	if len(h) == 0 {
		return nil
	}
	p := make(headerPairs, 0, 2*len(h))
	for k, vs := range h {
		v := ""
		switch len(vs) {
		case 0:
		case 1:
			v = vs[0]
		default:
			v = strings.Join(vs, ", ")
		}
		p = append(p, k, v)
	}
	return p
}

// get is the value of the header named name (canonical form).
func (p headerPairs) get(name string) string {
	for i := 0; i+1 < len(p); i += 2 {
		if p[i] == name {
			return p[i+1]
		}
	}
	return ""
}

// maskedPairs is MaskHeader of the pairs, kept as pairs: the writer
// encodes them as they are (a map per header was a tenth of the journal's
// CPU on a GetReward, issue 25). A name that is not canonical is made so,
// and a name that then repeats is kept once (the last), as in the map.
// memo masks a secret value it has masked before without hashing it
// again (nil: none).
func (p headerPairs) maskedPairs(memo *secrets.HeaderMemo) headerPairs {
	if len(p) == 0 {
		return nil
	}
	out := make(headerPairs, 0, len(p))
	renamed := false
	for i := 0; i+1 < len(p); i += 2 {
		k, v := p[i], p[i+1]
		n := memo.Name(k)
		if n.Secret {
			v = memo.Mask(v)
		}
		if n.Canonical != k {
			k, renamed = n.Canonical, true
		}
		out = append(out, k, v)
	}
	if renamed {
		out = out.lastOfEach()
	}
	return out
}

// lastOfEach keeps the last value of each name, in order.
func (p headerPairs) lastOfEach() headerPairs {
	out := p[:0:0]
	for i := 0; i+1 < len(p); i += 2 {
		seen := false
		for j := i + 2; j+1 < len(p); j += 2 {
			if p[j] == p[i] {
				seen = true
				break
			}
		}
		if !seen {
			out = append(out, p[i], p[i+1])
		}
	}
	return out
}

// toMap is the pairs as a map (names are distinct).
func (p headerPairs) toMap() map[string]string {
	if len(p) == 0 {
		return nil
	}
	out := make(map[string]string, len(p)/2)
	for i := 0; i+1 < len(p); i += 2 {
		out[p[i]] = p[i+1]
	}
	return out
}
