// Package onewrite sends a whole answer in one system call where
// net/http would make two (issue 25).
//
// net/http buffers a connection's writes 4 KB at a time: an answer
// larger than that with its headers (the listing's page of ten cards is
// 5.2 KB) leaves as a full 4 KB write while the handler writes it and the
// rest when the response ends. That is two write calls, two TCP segments
// and two wake-ups of the client: sending it in one gave the listing 5 to
// 10% more throughput under make load. A Conn told that an answer is
// coming (Expect) holds such a full buffer back and sends it with the
// next write in one writev.
//
// What it holds is always sent: with the next write, when the server
// marks the connection idle, hijacked or closed (State, called from the
// http.Server's ConnState), or before Close, CloseWrite and ReadFrom. It
// holds nothing unless told: an event stream's flushes leave at once.
package onewrite

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
)

// bufSize is net/http's connection buffer (newBufioWriterSize(..., 4<<10)
// in net/http/server.go): a write of exactly this size is that buffer
// flushed full in the middle of an answer. TestConn_oneWriteThroughNetHTTP
// fails if net/http changes it.
const bufSize = 4 << 10

// Listener wraps the TCP connections ln accepts in Conns.
func Listener(ln net.Listener) net.Listener { return listener{ln} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok && err == nil {
		return &Conn{TCPConn: tc}, nil
	}
	return c, err
}

// Conn is a TCP connection that can hold back one full buffer of an
// answer until the rest of it is written. Its lock guards what is held,
// never a system call, so a Close from another goroutine (a server cutting
// its connections) is never kept waiting by a write to a client that does
// not read.
type Conn struct {
	*net.TCPConn
	mu     sync.Mutex
	expect bool    // an answer is being written: a full buffer may wait
	held   *[]byte // the full buffer waiting, from heldBufs
	sends  int     // write system calls made (writev counts one), for tests
}

var heldBufs = sync.Pool{New: func() any { b := make([]byte, 0, bufSize); return &b }}

// Write sends p, or holds it when it is a full buffer of an expected
// answer. A write that follows a held buffer sends both in one writev.
func (c *Conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	held := c.held
	if held == nil && c.expect && len(p) == bufSize {
		c.held = heldBufs.Get().(*[]byte)
		*c.held = append((*c.held)[:0], p...)
		c.mu.Unlock()
		return len(p), nil
	}
	if held != nil {
		// The answer is on its way: anything further is not held.
		c.held, c.expect = nil, false
	}
	c.sends++
	c.mu.Unlock()
	if held == nil {
		return c.TCPConn.Write(p)
	}
	defer heldBufs.Put(held)
	bufs := net.Buffers{*held, p}
	n, err := bufs.WriteTo(c.TCPConn)
	return max(0, int(n)-len(*held)), err
}

// take ends the expected answer and hands over what is held, if anything.
func (c *Conn) take() *[]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	held := c.held
	c.held, c.expect = nil, false
	if held != nil {
		c.sends++
	}
	return held
}

// Flush sends what is held and ends the expected answer.
func (c *Conn) Flush() error {
	held := c.take()
	if held == nil {
		return nil
	}
	defer heldBufs.Put(held)
	_, err := c.TCPConn.Write(*held)
	return err
}

// Close sends what is held, then closes.
func (c *Conn) Close() error {
	_ = c.Flush() // closing anyway
	return c.TCPConn.Close()
}

// CloseWrite sends what is held, then shuts the writing side.
func (c *Conn) CloseWrite() error {
	if err := c.Flush(); err != nil {
		return err
	}
	return c.TCPConn.CloseWrite()
}

// ReadFrom sends what is held, then copies r (net/http's sendfile path).
func (c *Conn) ReadFrom(r io.Reader) (int64, error) {
	if err := c.Flush(); err != nil {
		return 0, err
	}
	return c.TCPConn.ReadFrom(r)
}

// State is for http.Server.ConnState: once a response is done (the
// connection idle) or the connection handed over, nothing stays held.
func State(c net.Conn, st http.ConnState) {
	if oc, ok := c.(*Conn); ok && (st == http.StateIdle || st == http.StateHijacked) {
		if oc.Flush() != nil {
			oc.TCPConn.Close() // the answer is cut: the client must not wait for it
		}
	}
}

type ctxKey struct{}

// Context is for http.Server.ConnContext: it lets Expect find the
// request's connection.
func Context(ctx context.Context, c net.Conn) context.Context {
	if oc, ok := c.(*Conn); ok {
		return context.WithValue(ctx, ctxKey{}, oc)
	}
	return ctx
}

// Expect says that the next writes on the request's connection are one
// answer of n bytes (its headers aside), so a full buffer of it may wait
// for the rest. An answer too small to fill a buffer, or a request not
// served through a Conn, is left as it is.
func Expect(r *http.Request, n int) {
	if n <= bufSize/2 {
		return // with headers of under 2 KB, net/http writes it in one
	}
	if oc, ok := r.Context().Value(ctxKey{}).(*Conn); ok {
		oc.mu.Lock()
		oc.expect = true
		oc.mu.Unlock()
	}
}
