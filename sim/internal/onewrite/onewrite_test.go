package onewrite

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// server serves handler through a Listener with the package's hooks, as
// sim's listeners do, and remembers each request's Conn.
type server struct {
	url   string
	mu    sync.Mutex
	conns []*Conn
}

func serve(t *testing.T, handler http.HandlerFunc) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{url: "http://" + ln.Addr().String()}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if oc, ok := r.Context().Value(ctxKey{}).(*Conn); ok {
				s.mu.Lock()
				s.conns = append(s.conns, oc)
				s.mu.Unlock()
			}
			handler(w, r)
		}),
		ConnState:   State,
		ConnContext: Context,
	}
	go srv.Serve(Listener(ln)) //nolint:errcheck // ends with Close
	t.Cleanup(func() { srv.Close() })
	return s
}

// sends is how many write system calls the server's end of the client's
// connection has made so far.
func (s *server) sends(client net.Conn) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, oc := range s.conns {
		if oc.RemoteAddr().String() == client.LocalAddr().String() {
			oc.mu.Lock()
			defer oc.mu.Unlock()
			return oc.sends
		}
	}
	return 0
}

// answer writes n bytes as one answer, as httpx.WriteJSON does.
func answer(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	body := bytes.Repeat([]byte("x"), n)
	w.Header().Set("Content-Length", strconv.Itoa(n))
	w.Header().Set("Date", "Tue, 24 Nov 2026 20:00:00 GMT") // a fixed header length
	Expect(r, n)
	w.Write(body) //nolint:errcheck // the client checks what arrives
}

// rawGet sends a GET on conn and reads the whole response (with its
// Content-Length) within a deadline, returning its bytes.
func rawGet(t *testing.T, conn net.Conn, br *bufio.Reader, path string, closing bool) []byte {
	t.Helper()
	conn.SetDeadline(time.Now().Add(5 * time.Second)) //nolint:errcheck
	hdr := "GET " + path + " HTTP/1.1\r\nHost: x\r\n"
	if closing {
		hdr += "Connection: close\r\n"
	}
	if _, err := io.WriteString(conn, hdr+"\r\n"); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("GET %s: %v (an answer held back and never sent)", path, err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatalf("GET %s: body: %v", path, err)
	}
	return body
}

// An expected answer of any size leaves in one write system call through
// net/http, whole, on a kept-alive connection and on one that closes,
// including answers whose last write is exactly a full buffer (held, and
// sent when the connection goes idle or closes).
func TestConn_oneWriteThroughNetHTTP(t *testing.T) {
	s := serve(t, answer)
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	for _, closing := range []bool{false, true} {
		// The header's length, to aim answers at the buffer's edges.
		head := headerLen(t, s.url, 3000, closing)
		cases := []struct {
			name string
			n    int
		}{
			{"small", 100},
			{"over half a buffer", 3000},
			{"a full buffer exactly", bufSize - head},
			{"a listing page", 5200},
			{"two full buffers exactly", 2*bufSize - head},
			{"large", 40_000},
		}
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/closing=%v", tc.name, closing), func(t *testing.T) {
				if closing {
					c, err := net.Dial("tcp", strings.TrimPrefix(s.url, "http://"))
					if err != nil {
						t.Fatal(err)
					}
					defer c.Close()
					conn, br = c, bufio.NewReader(c)
				}
				before := s.sends(conn)
				body := rawGet(t, conn, br, "/?n="+strconv.Itoa(tc.n), closing)
				if len(body) != tc.n {
					t.Fatalf("body %d bytes, want %d", len(body), tc.n)
				}
				// The idle hook runs once the answer is out; let it.
				deadline := time.Now().Add(2 * time.Second)
				for s.sends(conn)-before < 1 && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
				if got := s.sends(conn) - before; got != 1 {
					t.Errorf("%d-byte answer (header %d) took %d write calls, want 1", tc.n, head, got)
				}
			})
		}
	}
}

// headerLen is the length of answer's response header, on a kept-alive
// connection or on one the request closes (its header says so).
func headerLen(t *testing.T, url string, n int, closing bool) int {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cr := &countingReader{r: conn}
	br := bufio.NewReader(cr)
	rawGet(t, conn, br, "/?n="+strconv.Itoa(n), closing)
	return cr.n - br.Buffered() - n
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// A handler that did not Expect an answer (an event stream) has each
// flush sent at once, a full buffer included: the client reads the first
// event before the handler writes the second.
func TestConn_streamNotHeld(t *testing.T) {
	read := make(chan struct{})
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		w.Write(bytes.Repeat([]byte("a"), bufSize)) //nolint:errcheck
		w.(http.Flusher).Flush()
		select {
		case <-read:
		case <-time.After(5 * time.Second):
		}
		w.Write([]byte("end")) //nolint:errcheck
	})
	res, err := http.Get(s.url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	got := make([]byte, bufSize)
	done := make(chan error, 1)
	go func() { _, err := io.ReadFull(res.Body, got); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the stream's first full buffer was held back")
	}
	close(read)
	rest, _ := io.ReadAll(res.Body)
	if string(rest) != "end" {
		t.Fatalf("rest %q", rest)
	}
}

// A held buffer is sent before Close and CloseWrite, and before a
// ReadFrom copies anything after it.
func TestConn_heldSentBeforeClosingOrCopying(t *testing.T) {
	full := bytes.Repeat([]byte("h"), bufSize)
	cases := []struct {
		name string
		then func(*Conn) error
		want string
	}{
		{"Close", func(c *Conn) error { return c.Close() }, string(full)},
		{"CloseWrite", func(c *Conn) error { return c.CloseWrite() }, string(full)},
		{"ReadFrom", func(c *Conn) error {
			if _, err := c.ReadFrom(strings.NewReader("tail")); err != nil {
				return err
			}
			return c.Close()
		}, string(full) + "tail"},
		{"Flush", func(c *Conn) error {
			if err := c.Flush(); err != nil {
				return err
			}
			return c.Close()
		}, string(full)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			got := make(chan string, 1)
			go func() {
				c, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					got <- err.Error()
					return
				}
				defer c.Close()
				c.SetDeadline(time.Now().Add(5 * time.Second)) //nolint:errcheck
				b, _ := io.ReadAll(c)
				got <- string(b)
			}()
			nc, err := Listener(ln).Accept()
			if err != nil {
				t.Fatal(err)
			}
			c := nc.(*Conn)
			c.expect = true
			if n, err := c.Write(full); n != len(full) || err != nil || c.held == nil {
				t.Fatalf("Write: %d %v, held %v", n, err, c.held != nil)
			}
			if err := tc.then(c); err != nil {
				t.Fatal(err)
			}
			if g := <-got; g != tc.want {
				t.Fatalf("peer read %d bytes, want %d", len(g), len(tc.want))
			}
		})
	}
}

// A Close from another goroutine is not kept waiting by a write blocked
// on a client that does not read (a server cutting its connections at
// the end of its shutdown): the write fails and Close returns at once.
func TestConn_closeDoesNotWaitForABlockedWrite(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	peer, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close() // never reads
	nc, err := Listener(ln).Accept()
	if err != nil {
		t.Fatal(err)
	}
	c := nc.(*Conn)
	c.SetWriteBuffer(4096) //nolint:errcheck // fills sooner
	c.expect = true
	if _, err := c.Write(bytes.Repeat([]byte("h"), bufSize)); err != nil || c.held == nil {
		t.Fatalf("hold: %v", err)
	}
	wrote := make(chan error, 1)
	go func() {
		// With what is held, far more than the socket buffers take: blocks.
		_, err := c.Write(bytes.Repeat([]byte("b"), 64<<20))
		wrote <- err
	}()
	time.Sleep(200 * time.Millisecond) // the write is blocked by now
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	select {
	case <-closed:
	case <-time.After(3 * time.Second):
		t.Fatal("Close waited for a blocked write")
	}
	select {
	case err := <-wrote:
		if err == nil {
			t.Fatal("the blocked write succeeded on a closed connection")
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the blocked write did not end with Close")
	}
}
