package httpx

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// ReadBody: no body (a GET, http.NoBody, nil) is an empty body; a body
// is read whole up to MaxBody; a longer one is ErrTooLarge.
func TestReadBody(t *testing.T) {
	big := strings.Repeat("x", MaxBody+1)
	cases := []struct {
		name    string
		body    io.Reader // nil: the request's Body is set below
		nilBody bool
		want    string
		err     error
	}{
		{name: "GET without a body", body: http.NoBody, want: ""},
		{name: "nil Body", nilBody: true, want: ""},
		{name: "a body", body: strings.NewReader(`{"a":1}`), want: `{"a":1}`},
		{name: "chunked, empty", body: io.MultiReader(), want: ""},
		{name: "exactly MaxBody", body: strings.NewReader(big[1:]), want: big[1:]},
		{name: "over MaxBody", body: strings.NewReader(big), err: ErrTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/", tc.body)
			if tc.nilBody {
				req.Body = nil
			}
			got, err := ReadBody(echo.New().NewContext(req, httptest.NewRecorder()))
			if !errors.Is(err, tc.err) || (tc.err == nil && (got == nil || !bytes.Equal(got, []byte(tc.want)))) {
				t.Fatalf("ReadBody = %d bytes (nil %v), %v; want %d bytes, %v", len(got), got == nil, err, len(tc.want), tc.err)
			}
		})
	}
}
