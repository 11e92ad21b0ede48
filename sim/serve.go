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
	// 1024); MaxControlConns the control listener's (default 64). Beyond
	// the cap, new connections wait in the kernel's backlog until one
	// closes, so a flood of one listener leaves the others answering.
	MaxConns, MaxControlConns int
	// ShutdownTimeout is how long Serve waits for requests in flight when
	// it stops (default 5s); those still running are cut, logged, and
	// Serve returns ErrRequestsCut.
	ShutdownTimeout time.Duration
}

// Defaults of ServerOptions.
const (
	DefaultReadTimeout     = 30 * time.Second
	DefaultWriteTimeout    = 2 * time.Hour
	DefaultIdleTimeout     = 60 * time.Second
	DefaultMaxConns        = 1024
	DefaultMaxControlConns = 64
	DefaultShutdownTimeout = 5 * time.Second
)

func (o ServerOptions) withDefaults() ServerOptions {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.ReadTimeout, DefaultReadTimeout)
	def(&o.WriteTimeout, DefaultWriteTimeout)
	def(&o.IdleTimeout, DefaultIdleTimeout)
	def(&o.ShutdownTimeout, DefaultShutdownTimeout)
	if o.MaxConns <= 0 {
		o.MaxConns = DefaultMaxConns
	}
	if o.MaxControlConns <= 0 {
		o.MaxControlConns = DefaultMaxControlConns
	}
	return o
}

// ErrRequestsCut: requests were still running at the shutdown deadline
// and were cut without an answer.
var ErrRequestsCut = errors.New("requests were cut at the shutdown deadline")

// newServer builds one listener's server, with its connection cap and
// the record of requests in flight.
func (s *Sim) newServer(h Host, ln net.Listener, o ServerOptions, live *inFlight) (*http.Server, net.Listener) {
	limit := o.MaxConns
	if h == Control {
		limit = o.MaxControlConns
	}
	srv := &http.Server{
		Handler:           live.wrap(string(h), s.handlers[h]),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       o.ReadTimeout,
		WriteTimeout:      o.WriteTimeout,
		IdleTimeout:       o.IdleTimeout,
	}
	return srv, &limitListener{Listener: ln, slots: make(chan struct{}, limit)}
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
func (s *Sim) shutdown(servers map[Host]*http.Server, o ServerOptions, live *inFlight) error {
	ctx, cancel := context.WithTimeout(context.Background(), o.ShutdownTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, srv := range servers {
		wg.Go(func() { _ = srv.Shutdown(ctx) })
	}
	wg.Wait()
	cut := live.list()
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

// limitListener accepts at most cap(slots) connections at once; Accept
// waits for a slot. (golang.org/x/net/netutil.LimitListener does the
// same; this is its few lines without the dependency.)
type limitListener struct {
	net.Listener
	slots chan struct{}
	once  sync.Once
	done  chan struct{}
}

func (l *limitListener) Accept() (net.Conn, error) {
	l.once.Do(func() { l.done = make(chan struct{}) })
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.slots }}, nil
}

func (l *limitListener) Close() error {
	l.once.Do(func() { l.done = make(chan struct{}) })
	select {
	case <-l.done:
	default:
		close(l.done)
	}
	return l.Listener.Close()
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
