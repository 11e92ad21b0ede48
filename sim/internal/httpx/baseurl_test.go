package httpx

import (
	"crypto/tls"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

// BaseURL names the scheme echo's Scheme names, for trusted and other
// peers, over TLS or not, with each forwarding header or none of them.
func TestBaseURL_schemeAsEcho(t *testing.T) {
	e := echo.New()
	headers := []string{"", echo.HeaderXForwardedProto, echo.HeaderXForwardedProtocol, echo.HeaderXForwardedSsl, echo.HeaderXUrlScheme}
	values := map[string]string{echo.HeaderXForwardedSsl: "on"}
	seen := map[string]bool{}
	for _, peer := range []string{"127.0.0.1:5000", "10.1.2.3:5000", "203.0.113.5:5000", "[::1]:5000", "", "@"} {
		for _, h := range headers {
			for _, secure := range []bool{false, true} {
				req := httptest.NewRequest("GET", "/x", nil)
				req.Host, req.RemoteAddr = "sim.example:8080", peer
				if h != "" {
					v := values[h]
					if v == "" {
						v = "https"
					}
					req.Header.Set(h, v)
				}
				if secure {
					req.TLS = &tls.ConnectionState{}
				}
				c := e.NewContext(req, httptest.NewRecorder())
				want := c.Scheme() + "://sim.example:8080"
				if got := BaseURL(c, ""); got != want {
					t.Errorf("peer %q, header %q, TLS %v: %s, want %s", peer, h, secure, got, want)
				}
				seen[want] = true
			}
		}
	}
	if !seen["http://sim.example:8080"] || !seen["https://sim.example:8080"] {
		t.Errorf("the cases did not give both schemes: %v", seen)
	}
	if got := BaseURL(e.NewContext(httptest.NewRequest("GET", "/x", nil), httptest.NewRecorder()), "https://public.example/"); got != "https://public.example" {
		t.Errorf("configured: %s", got)
	}
}
