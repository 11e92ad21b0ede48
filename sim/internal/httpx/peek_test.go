package httpx

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// maxKept is the journal's bound of a kept body.
const maxKept = 64 << 10

// The journal reads a body once, before the handler; httpx.ReadBody then
// takes those very bytes (issue 25: no second copy), and a handler that
// reads the body itself still reads it as sent, short bodies, long ones
// and ones whose length was not declared.
func TestPeekBody_sharedWithReadBody(t *testing.T) {
	for _, c := range []struct {
		name      string
		body      string
		chunked   bool
		wantTaken bool
	}{
		{"declared length", `{"a":1}`, false, true},
		{"chunked", `{"a":2}`, true, true},
		{"longer than kept", strings.Repeat("x", maxKept+10), false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(c.body))
			if c.chunked {
				req.ContentLength = -1
			}
			kept, trunc := PeekBody(req, maxKept)
			if trunc != (len(c.body) > maxKept) || !strings.HasPrefix(c.body, string(kept)) {
				t.Fatalf("kept %d bytes, truncated %v", len(kept), trunc)
			}
			p, ok := req.Body.(*peekedBody)
			if !ok {
				t.Fatal("the peeked body cannot be taken")
			}
			whole, taken := p.take()
			if taken != c.wantTaken {
				t.Fatalf("taken %v, want %v", taken, c.wantTaken)
			}
			if taken {
				if string(whole) != c.body || &whole[0] != &kept[0] {
					t.Fatal("Take did not hand over the journal's own bytes")
				}
				if n, _ := req.Body.Read(make([]byte, 8)); n != 0 {
					t.Fatal("the body still reads after Take")
				}
				return
			}
			all, err := io.ReadAll(req.Body)
			if err != nil || string(all) != c.body {
				t.Fatalf("the handler read %d bytes (%v), want the body as sent", len(all), err)
			}
		})
	}
}
