// Package park holds a call for its latency draw on a timer, not on a
// goroutine (issue 53 item 5).
//
// net/http serves a connection on a goroutine that keeps its 4 KB read
// and write buffers, the parsed request and a second goroutine watching
// for the client to leave for as long as its handler runs: a call held
// 2 s costs about 25 KB, 10,000 of them 250 MB. A parked call keeps only
// its connection, the request's bytes and a timer. Park takes the
// connection over from net/http (a hijack), and when the timer fires
// gives it back through the listener (Lot.Accept) with the request's bytes
// in front of what the client sends next, so net/http reads the same
// request again and serves it, and then the connection's next requests, as
// any other. The second reading carries the first's facts (Call: its
// journal number and arrival, its capacity ticket) so it is the same call,
// held once.
package park

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Arrival is a call's arrival as the journal numbered it: its number,
// and the time on the channel's clock and on the wall clock.
type Arrival struct {
	Seq        uint64
	At, WallAt time.Time
}

// Call is what a parked call's second reading is told of its first.
type Call struct {
	Arrival
	// Ticket is its capacity ticket, given back once it is answered (nil:
	// none held).
	Ticket Ticket
	// Header is what its first reading had put in the answer's header
	// (how long it waited for its limit, say), for the answer to carry:
	// Pairs, not a clone of the map (about 420 B held a call).
	Header Pairs
	// Gone: the client hung up while it was parked; its request's context
	// is ended, so it is answered as a client gone (no effect).
	Gone bool
}

// Pairs is a header as name, value, name, value..., each value of a name
// in order: one slice where a copied http.Header is a map of slices.
type Pairs []string

// PairsOf is h as Pairs.
func PairsOf(h http.Header) Pairs {
	n := 0
	for _, vs := range h {
		n += 2 * len(vs)
	}
	if n == 0 {
		return nil
	}
	p := make(Pairs, 0, n)
	for k, vs := range h {
		for _, v := range vs {
			p = append(p, k, v)
		}
	}
	return p
}

// SetIn sets each name of p in h to its values in p, as they were.
func (p Pairs) SetIn(h http.Header) {
	for i := 0; i < len(p); i += 2 {
		h.Del(p[i])
	}
	for i := 0; i < len(p); i += 2 {
		h[p[i]] = append(h[p[i]], p[i+1])
	}
}

// Ticket is a place held in a channel's capacity limit.
type Ticket interface{ Release() }

// ErrParked is returned by a handler that parked its call: the answer
// comes from the second reading, so nothing is to be written or recorded.
var ErrParked = errors.New("park: call parked for its latency draw")

// Lot is a listener that also accepts the connections of parked calls
// whose time has come. One per public listener.
type Lot struct {
	ln       net.Listener
	accepted chan acceptResult
	lnClosed chan struct{} // the listener's Accept has stopped
	back     chan *returned
	stop     chan struct{}
	stopOnce sync.Once

	mu     sync.Mutex
	parked map[*parking]struct{}
	out    int // parked, or come back and not yet answered
}

type acceptResult struct {
	c   net.Conn
	err error
}

// NewLot wraps ln. Its real connections keep whatever type ln gives.
func NewLot(ln net.Listener) *Lot {
	l := &Lot{ln: ln, accepted: make(chan acceptResult), lnClosed: make(chan struct{}),
		back: make(chan *returned, 64), stop: make(chan struct{}), parked: map[*parking]struct{}{}}
	go l.acceptLoop()
	return l
}

func (l *Lot) acceptLoop() {
	for {
		c, err := l.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			close(l.lnClosed)
			return
		}
		select {
		case l.accepted <- acceptResult{c, err}:
		case <-l.stop:
			if c != nil {
				c.Close()
			}
			return
		}
	}
}

// Accept is the next new connection or the next parked call's. Once the
// listener is closed (Close), parked calls still come back until Stop; a
// shutdown closes the lot, answers them (WakeAll, Drain), then stops it
// before http.Server.Shutdown, which waits for Serve to return.
func (l *Lot) Accept() (net.Conn, error) {
	select {
	case r := <-l.back:
		return r, nil
	case a := <-l.accepted:
		return a.c, a.err
	case <-l.lnClosed:
	case <-l.stop:
		return nil, http.ErrServerClosed
	}
	select {
	case r := <-l.back:
		return r, nil
	case <-l.stop:
		return nil, http.ErrServerClosed
	}
}

// Close stops new connections; parked calls still come back (Stop ends that).
func (l *Lot) Close() error { return l.ln.Close() }

// Addr is the listener's address.
func (l *Lot) Addr() net.Addr { return l.ln.Addr() }

// Parked is how many calls are parked now, for the connection cap.
func (l *Lot) Parked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.parked)
}

// WakeAll ends every parked call's wait now (a shutdown answers them
// rather than cut them).
func (l *Lot) WakeAll() {
	l.mu.Lock()
	ps := make([]*parking, 0, len(l.parked))
	for p := range l.parked {
		ps = append(ps, p)
	}
	l.mu.Unlock()
	for _, p := range ps {
		if p.timer.Stop() {
			go l.wake(p)
		}
	}
}

// Drain waits until every parked call is answered, or ctx ends; it
// returns the calls still parked then, oldest first, each as "METHOD
// PATH (parked FOR)".
func (l *Lot) Drain(ctx context.Context) []string {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		l.mu.Lock()
		out := l.out
		l.mu.Unlock()
		if out == 0 {
			return nil
		}
		select {
		case <-tick.C:
			continue
		case <-ctx.Done():
		}
		break
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var left []*parking
	for p := range l.parked {
		left = append(left, p)
	}
	sort.Slice(left, func(i, j int) bool { return left[i].since.Before(left[j].since) })
	out := make([]string, len(left))
	for i, p := range left {
		out[i] = p.what + " (parked " + time.Since(p.since).Round(time.Millisecond).String() + ")"
	}
	return out
}

// Stop ends Accept and closes the connections of calls still parked,
// giving back their tickets.
func (l *Lot) Stop() {
	l.stopOnce.Do(func() { close(l.stop) })
	l.mu.Lock()
	ps := l.parked
	l.parked = map[*parking]struct{}{}
	l.mu.Unlock()
	for p := range ps {
		if p.timer.Stop() {
			p.conn.Close()
			l.answered(p.call)
		}
	}
}

// answered counts a parked call done with, giving its ticket back when
// no second reading will.
func (l *Lot) answered(call Call) {
	if call.Ticket != nil {
		call.Ticket.Release()
	}
	l.done()
}

func (l *Lot) done() {
	l.mu.Lock()
	l.out--
	l.mu.Unlock()
}

type parking struct {
	conn  net.Conn
	req   []byte // the request as read, then anything the client sent after it
	call  Call
	timer *time.Timer
	since time.Time
	what  string
}

type lotKey struct{}
type slotKey struct{}
type callKey struct{}

// slot is a returned connection's Call, taken by its first request (or
// given up when the connection closes before).
type slot struct {
	call  Call
	taken atomic.Bool
	done  func()
}

func (s *slot) abandon() {
	if s.taken.CompareAndSwap(false, true) {
		if s.call.Ticket != nil {
			s.call.Ticket.Release()
		}
		s.done()
	}
}

// ConnContext is for http.Server.ConnContext: it lets Park find the lot,
// and a returned connection's first request find its Call.
func (l *Lot) ConnContext(ctx context.Context, c net.Conn) context.Context {
	ctx = context.WithValue(ctx, lotKey{}, l)
	if r, ok := c.(*returned); ok {
		ctx = context.WithValue(ctx, slotKey{}, r.slot)
	}
	return ctx
}

// Returned reports whether c is a parked call's connection come back (it
// was counted against the connection cap while parked).
func Returned(c net.Conn) bool {
	_, ok := c.(*returned)
	return ok
}

// Claim gives a returned connection's first request its Call (From), and
// returns the function to call when that request is answered; any other
// request is returned as it is, with a no-op.
func Claim(r *http.Request) (*http.Request, func()) {
	s, _ := r.Context().Value(slotKey{}).(*slot)
	if s == nil || !s.taken.CompareAndSwap(false, true) {
		return r, func() {}
	}
	ctx := context.WithValue(r.Context(), callKey{}, &s.call)
	if s.call.Gone {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		cancel()
	}
	return r.WithContext(ctx), s.done
}

// From is the Call of a request that was parked before (nil: a first reading).
func From(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}

// Can reports whether r's call can be parked: served from a lot, over
// HTTP/1.
func Can(r *http.Request) bool {
	_, ok := r.Context().Value(lotKey{}).(*Lot)
	return ok && r.ProtoMajor == 1
}

// Park takes w's connection over for d and then gives it back to the lot
// with r (whose body, already read, is body) to be read again; the caller
// returns ErrParked. With no lot or no connection to take (Can false, a
// hijack refused), it returns that error and the caller waits in place.
func Park(w http.ResponseWriter, r *http.Request, body []byte, d time.Duration, call Call) error {
	l, _ := r.Context().Value(lotKey{}).(*Lot)
	if l == nil || r.ProtoMajor != 1 {
		return errors.New("park: not served from a lot over HTTP/1")
	}
	req := requestBytes(r, body)
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return err
	}
	_ = conn.SetDeadline(time.Time{})
	if n := rw.Reader.Buffered(); n > 0 { // what the client sent after it
		more, _ := rw.Reader.Peek(n)
		req = append(req, more...)
	}
	if r, ok := conn.(*returned); ok && r.slot.taken.Load() {
		// A connection parked before and parked again is parked as the
		// one underneath, with what its wrapper had not yet given:
		// wrapped again, it would gain a layer a call, each holding
		// memory and its read, for as long as the client keeps it.
		r.mu.Lock()
		req, r.pending = append(req, r.pending...), nil
		r.mu.Unlock()
		conn = r.Conn
	}
	p := &parking{conn: conn, req: req, call: call, since: time.Now(), what: r.Method + " " + r.URL.Path}
	l.mu.Lock()
	l.parked[p] = struct{}{}
	l.out++
	p.timer = time.AfterFunc(d, func() { l.wake(p) }) // its wake waits for the lock
	l.mu.Unlock()
	return nil
}

// wake gives p's connection back to the lot's Accept.
func (l *Lot) wake(p *parking) {
	l.mu.Lock()
	_, ok := l.parked[p]
	delete(l.parked, p)
	l.mu.Unlock()
	if !ok {
		return // Stop took it
	}
	p.call.Gone = hungUp(p.conn)
	r := &returned{Conn: p.conn, slot: &slot{call: p.call, done: l.done}, pending: p.req}
	select {
	case l.back <- r:
	case <-l.stop:
		p.conn.Close()
		l.answered(p.call)
	}
}

// requestBytes is r as HTTP/1 writes it, with body as its whole body.
func requestBytes(r *http.Request, body []byte) []byte {
	h := r.Header.Clone()
	for _, k := range []string{"Content-Length", "Transfer-Encoding", "Expect", "Trailer"} {
		h.Del(k)
	}
	// Written once to count it, then into a buffer of its size: it is
	// held for the whole draw, and a grown buffer is up to twice as big.
	var n counter
	writeRequest(&n, r, h, body)
	b := bytes.NewBuffer(make([]byte, 0, int(n)))
	writeRequest(b, r, h, body)
	return b.Bytes()
}

func writeRequest(w io.Writer, r *http.Request, h http.Header, body []byte) {
	_, _ = io.WriteString(w, r.Method+" "+r.RequestURI+" "+r.Proto+"\r\nHost: "+r.Host+"\r\n")
	_ = h.Write(w)
	if len(body) > 0 || r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch {
		_, _ = io.WriteString(w, "Content-Length: "+strconv.Itoa(len(body))+"\r\n")
	}
	_, _ = io.WriteString(w, "\r\n")
	_, _ = w.Write(body)
}

// counter counts what is written to it.
type counter int

func (c *counter) Write(p []byte) (int, error) {
	*c += counter(len(p))
	return len(p), nil
}

func (c *counter) WriteString(s string) (int, error) {
	*c += counter(len(s))
	return len(s), nil
}

// returned is a parked call's connection come back: its reads give the
// request again, then what the client sends.
type returned struct {
	net.Conn
	slot    *slot
	mu      sync.Mutex
	pending []byte
}

func (c *returned) Read(p []byte) (int, error) {
	c.mu.Lock()
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		if len(c.pending) == 0 {
			c.pending = nil
		}
		c.mu.Unlock()
		return n, nil
	}
	c.mu.Unlock()
	return c.Conn.Read(p)
}

// Unwrap is the connection taken over (onewrite's, for its one-write answers).
func (c *returned) Unwrap() net.Conn { return c.Conn }

// Close closes the connection; one closed before its request was read
// again gives its ticket back (Claim never will).
func (c *returned) Close() error {
	c.slot.abandon()
	return c.Conn.Close()
}
