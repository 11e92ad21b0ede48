package sim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/onewrite"
	"github.com/rewardsim/rewardsim/sim/internal/park"
)

// ServerOptions bound every listener's connections and requests. Zero
// fields take the defaults below (docs/security.md).
type ServerOptions struct {
	// ReadTimeout bounds reading one request, headers and body (default 30s).
	ReadTimeout time.Duration
	// WriteTimeout bounds a request from its headers to the end of its
	// answer, so it must exceed the longest injected delay (default 2h;
	// the docs' longest example delay is 1h).
	WriteTimeout time.Duration
	// IdleTimeout closes a keep-alive connection idle this long (default 60s).
	IdleTimeout time.Duration
	// MaxConns caps the open connections of each public listener (default
	// 1024); MaxControlConns the control listener's (default 64). At the
	// cap the oldest idle keep-alive connection is closed to admit a new
	// one; with none idle, a few reserved connections beyond the cap
	// serve only health and small control calls (see connGate).
	MaxConns, MaxControlConns int
	// MaxLiveStreams bounds the open GET /__sim/live streams of a
	// listener (default 16), MaxLiveStreamsPerClient those of one client
	// address (default 4). Streams are counted apart from MaxConns, so
	// dashboards (or a page opening a hundred of them) never fill the cap.
	MaxLiveStreams, MaxLiveStreamsPerClient int
	// ShutdownTimeout is how long Serve waits for requests in flight when
	// it stops (default 5s); those still running are cut, logged, and
	// Serve returns ErrRequestsCut.
	ShutdownTimeout time.Duration
}

// Defaults of ServerOptions.
const (
	DefaultReadTimeout     = 30 * time.Second
	DefaultWriteTimeout    = 90 * time.Second
	DefaultIdleTimeout     = 60 * time.Second
	DefaultMaxConns        = 1024
	DefaultMaxControlConns = 64
	DefaultMaxLiveStreams  = 16
	DefaultMaxLivePerAddr  = 4
	DefaultShutdownTimeout = 5 * time.Second
)

func (o ServerOptions) withDefaults() ServerOptions {
	orDefault(&o.ReadTimeout, DefaultReadTimeout)
	orDefault(&o.WriteTimeout, DefaultWriteTimeout)
	orDefault(&o.IdleTimeout, DefaultIdleTimeout)
	orDefault(&o.ShutdownTimeout, DefaultShutdownTimeout)
	orDefault(&o.MaxConns, DefaultMaxConns)
	orDefault(&o.MaxControlConns, DefaultMaxControlConns)
	orDefault(&o.MaxLiveStreams, DefaultMaxLiveStreams)
	orDefault(&o.MaxLiveStreamsPerClient, DefaultMaxLivePerAddr)
	return o
}

// orDefault sets *p to d when it is not above zero (unset).
func orDefault[T int | time.Duration](p *T, d T) {
	if *p <= 0 {
		*p = d
	}
}

// ErrRequestsCut: requests were still running at the shutdown deadline
// and were cut without an answer.
var ErrRequestsCut = errors.New("requests were cut at the shutdown deadline")

// newServer builds one listener's server, with its connection gate and
// the record of requests in flight.
func (s *Sim) newServer(h Host, o ServerOptions, live *inFlight, lot *park.Lot) *http.Server {
	limit := o.MaxConns
	if h == Control {
		limit = o.MaxControlConns
	}
	g := newConnGate(limit, o)
	if lot != nil {
		g.parked = lot.Parked
	}
	srv := &http.Server{
		Handler:           g.wrap(live.wrap(string(h), s.handlers[h])),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       o.ReadTimeout,
		WriteTimeout:      o.WriteTimeout,
		IdleTimeout:       o.IdleTimeout,
		// onewrite's hooks send what a connection held back once an
		// answer is done, and let WriteJSON find the connection.
		ConnState: func(c net.Conn, st http.ConnState) {
			onewrite.State(c, st)
			g.state(c, st)
		},
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if lot != nil {
				ctx = lot.ConnContext(ctx, c)
			}
			return onewrite.Context(g.connContext(ctx, c), c)
		},
	}
	return srv
}

// inFlight records the requests being served, so a shutdown can say what
// it cut.
type inFlight struct {
	mu   sync.Mutex
	next uint64
	reqs map[uint64]flight
}

type flight struct {
	listener string
	r        *http.Request
	since    time.Time
}

func (f *inFlight) wrap(listener string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A parked call read again is told of its first reading, and
		// counted answered when this ends.
		r, answered := park.Claim(r)
		defer answered()
		f.mu.Lock()
		if f.reqs == nil {
			f.reqs = map[uint64]flight{}
		}
		f.next++
		id := f.next
		f.reqs[id] = flight{listener, r, time.Now()}
		f.mu.Unlock()
		defer func() {
			f.mu.Lock()
			delete(f.reqs, id)
			f.mu.Unlock()
		}()
		next.ServeHTTP(w, r)
	})
}

// list is the requests in flight, oldest first.
func (f *inFlight) list() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := make([]uint64, 0, len(f.reqs))
	for id := range f.reqs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	out := make([]string, len(ids))
	for i, id := range ids {
		fl := f.reqs[id]
		out[i] = fmt.Sprintf("%s %s %s (running %s)", fl.listener, fl.r.Method, fl.r.URL.Path, time.Since(fl.since).Round(time.Millisecond))
	}
	return out
}

// shutdown stops the servers, waiting up to o.ShutdownTimeout for
// requests in flight; any still running are logged and cut.
//
// Calls parked for their latency draw are answered at once rather than
// cut: their draw ends with the process.
func (s *Sim) shutdown(servers map[Host]*http.Server, lots []*park.Lot, o ServerOptions, live *inFlight) error {
	ctx, cancel := context.WithTimeout(context.Background(), o.ShutdownTimeout)
	defer cancel()
	// No new connections; parked calls come back to be answered, and the
	// lots stop before Shutdown, which waits for their Serve loops.
	var cut []string
	for _, lot := range lots {
		_ = lot.Close()
		lot.WakeAll()
	}
	for _, lot := range lots {
		cut = append(cut, lot.Drain(ctx)...)
		lot.Stop()
	}
	var wg sync.WaitGroup
	for _, srv := range servers {
		wg.Go(func() { _ = srv.Shutdown(ctx) })
	}
	wg.Wait()
	cut = append(cut, live.list()...)
	if len(cut) == 0 {
		return nil
	}
	for _, r := range cut {
		s.log.Error("shutdown: request cut without an answer", "request", r, "deadline", o.ShutdownTimeout)
	}
	for _, srv := range servers {
		_ = srv.Close()
	}
	return fmt.Errorf("%w (%d, after %s): %s", ErrRequestsCut, len(cut), o.ShutdownTimeout, strings.Join(cut, "; "))
}
