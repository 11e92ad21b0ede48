package httpx

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// WriteJSON's answer reaches a client through net/http with its
// Content-Length, whatever its size: not chunked past net/http's 2 KB
// buffer, nor past the 64 KB pooled-buffer bound. An answer whose header
// a handler already sent keeps the framing net/http chose for it.
func TestWriteJSON_contentLength(t *testing.T) {
	body := func(n int) string { return `{"pad":"` + strings.Repeat("x", n) + `"}` + "\n" }
	e := echo.New()
	cases := []struct {
		name    string
		handler echo.HandlerFunc
		want    string
		framed  bool // Content-Length set by WriteJSON
	}{
		{"small", nil, body(10), true},
		{"just under the chunking buffer", nil, body(2030), true},
		{"just over it", nil, body(2040), true},
		{"a listing page", nil, body(6000), true},
		{"over the pooled bound", nil, body(70_000), true},
		{"after the header was sent", func(c echo.Context) error {
			c.Response().WriteHeader(http.StatusOK)
			return WriteJSON(c, func(b []byte) []byte { return append(b, body(6000)...) })
		}, body(6000), false},
	}
	for i, tc := range cases {
		h := tc.handler
		if h == nil {
			want := tc.want
			h = func(c echo.Context) error { return WriteJSON(c, func(b []byte) []byte { return append(b, want...) }) }
		}
		e.GET("/"+strconv.Itoa(i), h)
	}
	srv := httptest.NewServer(e)
	defer srv.Close()
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := srv.Client().Get(srv.URL + "/" + strconv.Itoa(i))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil || string(got) != tc.want {
				t.Fatalf("body: %v, %d bytes, want %d", err, len(got), len(tc.want))
			}
			if ct := res.Header.Get("Content-Type"); tc.framed && ct != echo.MIMEApplicationJSON {
				t.Errorf("Content-Type %q", ct)
			}
			framed := res.ContentLength == int64(len(tc.want)) && len(res.TransferEncoding) == 0
			if framed != tc.framed {
				t.Errorf("Content-Length %d, Transfer-Encoding %q: framed by its length %v, want %v",
					res.ContentLength, res.TransferEncoding, framed, tc.framed)
			}
		})
	}
}
