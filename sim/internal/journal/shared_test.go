package journal

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// Answers that repeat (a listing polled again and again) are stored once
// a batch, and every entry still reads back with its own answer, whole:
// through the middleware, with the count bound pruning as it goes and a
// channel's entries deleted in between.
func TestJournal_repeatedAnswersReadWhole(t *testing.T) {
	const keep = 600
	j, _, e := open(t, Options{MaxEntries: keep})
	answers := []string{
		`{"rewards":[` + strings.Repeat(`{"rewardId":1,"offerTitle":"Heavy","couponCode":"H-0001"},`, 50) + `{}]}`,
		`{"rewards":[` + strings.Repeat(`{"rewardId":2},`, 100) + `{}]}`,
		`{"status":false,"message":"not found"}`,
	}
	e.GET("/list/:n", func(c echo.Context) error {
		n := c.Param("n")
		var i int
		fmt.Sscan(n, &i)
		if i%5 == 4 {
			return c.String(http.StatusOK, "unique "+n+" "+answers[0])
		}
		return c.Blob(http.StatusOK, "application/json", []byte(answers[i%len(answers)]))
	})
	rng := rand.New(rand.NewPCG(25, 25))
	want := map[string]string{} // path -> answer
	for i := range 1000 {
		n := rng.IntN(1 << 20)
		path := fmt.Sprintf("/list/%d", n)
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("X-Channelid", []string{"CHA", "CHB"}[i%2])
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)
		want[path] = w.Body.String()
		if i == 600 {
			if err := j.ResetChannel(t.Context(), "CHB"); err != nil {
				t.Fatal(err)
			}
		}
	}
	entries, err := j.Entries(t.Context(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != keep {
		t.Fatalf("%d entries kept, want %d", len(entries), keep)
	}
	for _, en := range entries {
		got := string(en.Response.Body)
		if got == "" {
			got = en.Response.Text
		}
		if w := want[en.Path]; got != w {
			t.Fatalf("entry %d (%s) answers %.60q..., was sent %.60q...", en.Seq, en.Path, got, w)
		}
	}
	if s := j.Skipped(); s != 0 {
		t.Fatalf("%d records could not be read", s)
	}
}
