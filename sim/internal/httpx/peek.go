package httpx

import (
	"bytes"
	"io"
	"net/http"
)

// PeekBody reads up to max bytes of the body for the journal, before any
// handler (so it keeps the bodies of calls no handler reads), and puts
// them back in front of the rest, so the handler reads the body exactly
// as sent (its own size limit included); truncated says there was more.
// The one hand-off of a buffer between the journal and the handlers: a
// body of known length is read into one buffer of that size, and when it
// holds the whole body ReadBody takes those very bytes (one read, no
// second copy); from then on both only read them.
func PeekBody(req *http.Request, max int) (kept []byte, truncated bool) {
	var data []byte
	ended := false // the body's end was read, without an error
	if n := req.ContentLength; n > 0 && n <= int64(max) {
		data = make([]byte, n, n+1)
		got, err := io.ReadFull(req.Body, data)
		data = data[:got]
		if err == nil {
			var one [1]byte
			m, err := req.Body.Read(one[:])
			data = append(data, one[:m]...)
			ended = m == 0 && err == io.EOF
		}
	} else {
		w := bytes.NewBuffer(make([]byte, 0, 1024))
		_, err := io.CopyN(w, req.Body, int64(max)+1)
		data, ended = w.Bytes(), err == io.EOF
	}
	p := &peekedBody{rest: req.Body, whole: ended && len(data) <= max, data: data}
	p.head.Reset(data)
	req.Body = p
	if len(data) > max {
		return data[:max:max], true
	}
	return data, false
}

// peekedBody is a request body whose first bytes PeekBody read: those
// bytes, then the rest as sent.
type peekedBody struct {
	head  bytes.Reader
	data  []byte
	whole bool // data is the whole body
	rest  io.ReadCloser
}

func (p *peekedBody) Read(b []byte) (int, error) {
	if p.head.Len() > 0 {
		return p.head.Read(b)
	}
	return p.rest.Read(b)
}

func (p *peekedBody) Close() error { return p.rest.Close() }

// take hands over the whole body when PeekBody's read holds it and
// nothing of it was read yet.
func (p *peekedBody) take() ([]byte, bool) {
	if !p.whole || p.head.Len() != len(p.data) {
		return nil, false
	}
	p.head.Reset(nil)
	return p.data, true
}
