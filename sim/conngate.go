package sim

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/api/control"
	"github.com/rewardsim/rewardsim/sim/internal/park"
)

// connGate keeps a listener available to new clients (issue 23). It
// counts connections through http.Server.ConnState rather than wrapping
// the listener: golang.org/x/net/netutil.LimitListener (and the
// hand-written copy this replaces) can only make new clients wait in the
// backlog, so 1,024 idle keep-alive sockets denied the port for a minute.
// The server knows which connections are idle; the gate uses that:
//
//   - At the cap, the oldest idle keep-alive connection is closed to
//     admit the new one; a connection that has sent nothing yet counts
//     as idle, spared for newConnGrace while another is idle.
//   - With none idle (every connection mid-request), up to connReserve
//     connections beyond the cap are admitted for health and small
//     control calls only; anything else on them is answered 503 and
//     closed. Beyond that the new connection is closed at once.
//   - Live streams (GET /__sim/live) are counted apart, under their own
//     bound per listener and per client address (429 beyond), so they
//     never take the request cap's room.
//   - 401 and 403 answers close their connection: a client without a
//     valid token keeps no socket open.
type connGate struct {
	cap, reserve     int
	maxLive, maxAddr int

	// parked is how many of the listener's calls are parked for their
	// latency draw (nil: none can be): their connections count against
	// the cap though net/http no longer serves them.
	parked func() int

	mu      sync.Mutex
	conns   map[net.Conn]*connInfo
	streams int            // connections holding a live stream
	perAddr map[string]int // live streams by client address
}

// connReserve is how many connections beyond the cap are let in, when
// none is idle, for health and small control calls.
const connReserve = 8

type connInfo struct {
	idle      bool
	idleSince time.Time
	over      bool // admitted into the reserve
	stream    bool
	fresh     bool // accepted, nothing read yet
}

// newConnGrace is how long a connection that has sent nothing yet is
// safe from eviction.
const newConnGrace = time.Second

func newConnGate(limit int, o ServerOptions) *connGate {
	return &connGate{cap: limit, reserve: connReserve, maxLive: o.MaxLiveStreams, maxAddr: o.MaxLiveStreamsPerClient,
		conns: map[net.Conn]*connInfo{}, perAddr: map[string]int{}}
}

// state is the server's ConnState hook.
func (g *connGate) state(c net.Conn, st http.ConnState) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch st {
	case http.StateNew:
		// A connection that has sent nothing yet counts as idle: one that
		// never sends a request must not hold a slot until the header
		// timeout.
		info := &connInfo{idle: true, fresh: true, idleSince: time.Now()}
		if park.Returned(c) {
			// A parked call come back: it was counted while parked, and its
			// request is already here.
			info.idle, info.fresh = false, false
			g.conns[c] = info
			return
		}
		if g.open() >= g.cap {
			if old := g.oldestIdle(); old != nil {
				old.Close() // its ConnState(StateClosed) follows from the server
				delete(g.conns, old)
			} else if g.open() >= g.cap+g.reserve {
				c.Close()
				return
			} else {
				info.over = true
			}
		}
		g.conns[c] = info
	case http.StateIdle:
		if info := g.conns[c]; info != nil {
			info.idle, info.idleSince = true, time.Now()
		}
	case http.StateActive:
		if info := g.conns[c]; info != nil {
			info.idle, info.fresh = false, false
		}
	case http.StateHijacked, http.StateClosed:
		if info := g.conns[c]; info != nil && info.stream {
			g.streams--
		}
		delete(g.conns, c)
	}
}

// open is how many connections count against the cap (g.mu held).
func (g *connGate) open() int {
	n := len(g.conns) - g.streams
	if g.parked != nil {
		n += g.parked()
	}
	return n
}

// oldestIdle is the connection to close to admit a new one, or nil when
// every connection is mid-request (a scan: the cap is a few thousand at
// most, and it runs only at the cap). It is the one idle longest, and a
// connection accepted under newConnGrace ago (its first request may be on
// its way) only when no other is idle: the oldest of those, never the new
// one, so a flood of connections that send nothing cannot keep a new
// client out (issue 55).
func (g *connGate) oldestIdle() net.Conn {
	var oldest net.Conn
	var since time.Time
	var oldestInGrace bool
	fresh := time.Now().Add(-newConnGrace)
	for c, info := range g.conns {
		if !info.idle || info.stream {
			continue
		}
		inGrace := info.fresh && info.idleSince.After(fresh)
		if oldest == nil || (oldestInGrace && !inGrace) || (inGrace == oldestInGrace && info.idleSince.Before(since)) {
			oldest, since, oldestInGrace = c, info.idleSince, inGrace
		}
	}
	return oldest
}

type connKey struct{}

func (g *connGate) connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// small reports whether a request may use a reserved connection: health
// and control calls that neither stream nor read the whole journal.
func small(r *http.Request) bool {
	p := r.URL.Path
	if p == "/__sim/health" {
		return true
	}
	if !strings.HasPrefix(p, "/__sim/") {
		return false
	}
	for _, heavy := range []string{"/__sim/live", "/__sim/recording", "/__sim/report", "/__sim/dashboard", "/__sim/diagram"} {
		if strings.HasPrefix(p, heavy) {
			return false
		}
	}
	return true
}

// wrap applies the gate's per-request rules around next.
func (g *connGate) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Context().Value(connKey{}).(net.Conn)
		g.mu.Lock()
		info := g.conns[c]
		over := info != nil && info.over
		g.mu.Unlock()
		if over && !small(r) {
			w.Header().Set("Connection", "close")
			w.Header().Set("Retry-After", "1")
			http.Error(w, "the listener is at its connection cap; only health and small control calls are served on this connection", http.StatusServiceUnavailable)
			return
		}
		if r.URL.Path == "/__sim/live" {
			// The stream takes its slot once past the token check, so a
			// request without the token is answered 401, never 429.
			addr := clientAddr(r)
			r = r.WithContext(control.WithStreamSlot(r.Context(), func() (func(), bool) {
				if !g.openStream(c, addr) {
					return nil, false
				}
				return func() { g.closeStream(c, addr) }, true
			}))
		}
		next.ServeHTTP(&closeOnRefusal{ResponseWriter: w}, r)
	})
}

func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func (g *connGate) openStream(c net.Conn, addr string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.streams >= g.maxLive || g.perAddr[addr] >= g.maxAddr {
		return false
	}
	g.streams++
	g.perAddr[addr]++
	if info := g.conns[c]; info != nil {
		info.stream = true
	}
	return true
}

func (g *connGate) closeStream(c net.Conn, addr string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.perAddr[addr]--; g.perAddr[addr] <= 0 {
		delete(g.perAddr, addr)
	}
	if info := g.conns[c]; info != nil && info.stream {
		info.stream = false
		g.streams--
	}
}

// closeOnRefusal closes the connection after a 401 or 403 answer.
type closeOnRefusal struct {
	http.ResponseWriter
	wrote bool
}

func (w *closeOnRefusal) WriteHeader(code int) {
	if !w.wrote && (code == http.StatusUnauthorized || code == http.StatusForbidden) {
		w.Header().Set("Connection", "close")
	}
	w.wrote = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *closeOnRefusal) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController (and echo's Flush) reach the
// server's writer, so event streams still flush.
func (w *closeOnRefusal) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *closeOnRefusal) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
