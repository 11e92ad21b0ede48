package journal

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/httpx"
)

// keptBody reads an entry's answer as stored (JSON or text).
func keptBody(en Entry) string {
	if len(en.Response.Body) > 0 {
		return string(en.Response.Body)
	}
	return en.Response.Text
}

// An answer written by httpx.WriteJSON is journaled as the client got
// it, however the handler writes around it: alone, followed by more
// bytes, after bytes of its own, larger than MaxBodyKept; and the
// answers written without it (c.JSON, a stream) as before.
func TestRecorder_keptAnswersJournaledAsSent(t *testing.T) {
	j, _, e := open(t, Options{})
	pad := func(n int) string { return `{"pad":"` + strings.Repeat("x", n) + `"}` }
	write := func(body string) func([]byte) []byte {
		return func(b []byte) []byte { return append(b, body...) }
	}
	cases := []struct {
		name      string
		handler   echo.HandlerFunc
		want      string
		truncated bool
	}{
		{"whole", func(c echo.Context) error { return httpx.WriteJSON(c, write(pad(6000))) }, pad(6000), false},
		{"then-more", func(c echo.Context) error {
			if err := httpx.WriteJSON(c, write(pad(10))); err != nil {
				return err
			}
			_, err := c.Response().Write([]byte(" and more"))
			return err
		}, pad(10) + " and more", false},
		{"after-own-bytes", func(c echo.Context) error {
			c.Response().WriteHeader(http.StatusOK)
			if _, err := c.Response().Write([]byte("head ")); err != nil {
				return err
			}
			return httpx.WriteJSON(c, write(pad(10)))
		}, "head " + pad(10), false},
		{"over-the-bound", func(c echo.Context) error { return httpx.WriteJSON(c, write(pad(MaxBodyKept))) }, pad(MaxBodyKept)[:MaxBodyKept], true},
		{"twice", func(c echo.Context) error {
			if err := httpx.WriteJSON(c, write(pad(3))); err != nil {
				return err
			}
			return httpx.WriteJSON(c, write(pad(4)))
		}, pad(3) + pad(4), false},
		{"c.JSON", func(c echo.Context) error { return c.JSON(http.StatusOK, map[string]int{"n": 1}) }, `{"n":1}`, false},
		{"stream", func(c echo.Context) error {
			c.Response().WriteHeader(http.StatusOK)
			for i := range 3 {
				fmt.Fprintf(c.Response(), "part %d;", i)
				c.Response().Flush()
			}
			return nil
		}, "part 0;part 1;part 2;", false},
	}
	for _, tc := range cases {
		e.GET("/keep/"+tc.name, tc.handler)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			e.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/keep/"+tc.name, nil))
			if sent := w.Body.String(); !strings.HasPrefix(sent, tc.want) {
				t.Fatalf("client got %.60q..., want %.60q...", sent, tc.want)
			}
			entries, err := j.Entries(t.Context(), Filter{})
			if err != nil {
				t.Fatal(err)
			}
			en := entries[len(entries)-1]
			if en.Path != "/keep/"+tc.name {
				t.Fatalf("last entry is %s", en.Path)
			}
			if got := keptBody(en); got != tc.want || en.Response.Truncated != tc.truncated {
				t.Fatalf("journal kept %.60q... (%d bytes, truncated %v), want %.60q... (%d bytes, truncated %v)",
					got, len(got), en.Response.Truncated, tc.want, len(tc.want), tc.truncated)
			}
		})
	}
}

// Answers written from pooled buffers in parallel are each journaled
// whole: the journal keeps its own copy, so a buffer back in the pool and
// written over by the next answer changes no entry.
func TestRecorder_keptAnswersSurviveParallelRequests(t *testing.T) {
	j, _, e := open(t, Options{})
	e.GET("/keep/:n", func(c echo.Context) error {
		n := c.Param("n")
		return httpx.WriteJSON(c, func(b []byte) []byte {
			return append(append(append(b, `{"n":"`...), strings.Repeat(n, 200)...), `"}`...)
		})
	})
	const workers, each = 4, 300
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, fmt.Sprintf("/keep/%d-%d", w, i), nil))
			}
		}()
	}
	wg.Wait()
	entries, err := j.Entries(t.Context(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != workers*each {
		t.Fatalf("%d entries, want %d", len(entries), workers*each)
	}
	for _, en := range entries {
		n := strings.TrimPrefix(en.Path, "/keep/")
		if want := `{"n":"` + strings.Repeat(n, 200) + `"}`; keptBody(en) != want {
			t.Fatalf("entry %d (%s) kept %.60q...", en.Seq, en.Path, keptBody(en))
		}
	}
}
