package outbound_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/outbound"
)

func TestOrigin(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://a.example/x", "http://a.example:80"},
		{"HTTP://A.example:80/", "http://a.example:80"},
		{"https://a.example", "https://a.example:443"},
		{"http://127.0.0.1:8080/p?q", "http://127.0.0.1:8080"},
		{"http://[::1]:9/", "http://[::1]:9"},
	} {
		u, _ := url.Parse(c.in)
		if got := outbound.Origin(u); got != c.want {
			t.Errorf("Origin(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// A POST with a body and a credential, redirected (307, which re-sends
// the body) to a second server on another port: the second server
// receives nothing and the error names both origins. Within one origin
// a redirect is still followed.
func TestSameOrigin_refusesAnotherOrigin(t *testing.T) {
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	var first *httptest.Server
	first = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/steal", http.StatusTemporaryRedirect)
		case "/here":
			http.Redirect(w, r, first.URL+"/landed", http.StatusTemporaryRedirect)
		default:
			b, _ := io.ReadAll(r.Body)
			w.Write(b)
		}
	}))
	defer first.Close()
	post := func(path string) (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodPost, first.URL+path, strings.NewReader(`{"SIGN":"x"}`))
		req.Header.Set("X-Rewardsim-Control-Token", "s3cret")
		return outbound.Client(0).Do(req)
	}
	_, err := post("/away")
	var oe *outbound.OtherOriginError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), strings.TrimPrefix(first.URL, "http://")) || !strings.Contains(err.Error(), strings.TrimPrefix(other.URL, "http://")) {
		t.Fatalf("a redirect to another origin: %v, want an error naming both", err)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Fatalf("the other origin received %d request(s)", n)
	}
	res, err := post("/here")
	if err != nil {
		t.Fatalf("a redirect within the origin: %v", err)
	}
	defer res.Body.Close()
	if b, _ := io.ReadAll(res.Body); res.Request.URL.Path != "/landed" || string(b) != `{"SIGN":"x"}` {
		t.Fatalf("a redirect within the origin landed on %s with %q", res.Request.URL.Path, b)
	}
}
