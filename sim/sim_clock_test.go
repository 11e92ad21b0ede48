package sim_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// Without an injected clock (as `rewardsim serve` runs) the simulator
// uses its persisted sim clock, and everything reads that one clock: set
// it through the control API and the journal stamps exchanges with it.
//
// clause: SIM-3, SIM-4
func TestServeClockIsTheJournalsClock_SIM3(t *testing.T) {
	s, err := sim.New(sim.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	pub := httptest.NewServer(s.Handler(sim.All))
	ctl := httptest.NewServer(s.Handler(sim.Control))
	defer func() { pub.Close(); ctl.Close(); s.Close() }()

	post := func(url, body string) *http.Response {
		t.Helper()
		res, err := http.Post(url, "application/json", bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	if res := post(ctl.URL+"/__sim/clock", `{"mode":"frozen","time":"2030-06-01T12:00:00+05:30"}`); res.StatusCode != http.StatusOK {
		t.Fatalf("set clock: HTTP %d", res.StatusCode)
	}
	post(pub.URL+"/api/getSecuredReferenceToken", `{}`)

	res, err := http.Get(ctl.URL + "/__sim/journal?endpoint=getSecuredReferenceToken")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var page struct{ Entries []struct{ At time.Time } }
	if err := json.NewDecoder(res.Body).Decode(&page); err != nil || len(page.Entries) != 1 {
		t.Fatalf("journal: %v %+v", err, page)
	}
	if want := time.Date(2030, 6, 1, 6, 30, 0, 0, time.UTC); !page.Entries[0].At.Equal(want) {
		t.Fatalf("journal entry at %s, want the simulated %s", page.Entries[0].At, want)
	}
}

// clause: SIM-3
// The clock cannot be set or advanced where answers and the saved clock
// would break, the global clock or a channel's own: such a move is a 400
// naming the range, the clock stays where it was, and the simulator keeps
// answering. The zero time (0001-01-01T00:00:00Z) is a time like any
// other, refused, not taken for "no time given".
func TestClock_SIM3_rangeIsGuarded(t *testing.T) {
	s := simtest.New(t)
	clockNow := func(channel string) string {
		t.Helper()
		st, out := ctl(t, s, "GET", "/__sim/clock?channel="+channel, nil)
		var c struct{ Now string }
		if err := json.Unmarshal(out, &c); st != http.StatusOK || err != nil {
			t.Fatalf("clock: HTTP %d %s", st, out)
		}
		return c.Now
	}
	for _, c := range []struct {
		name, path string
		body       map[string]any
	}{
		{"zero time", "/__sim/clock", map[string]any{"time": "0001-01-01T00:00:00Z"}},
		{"zero time frozen", "/__sim/clock", map[string]any{"mode": "frozen", "time": "0001-01-01T00:00:00Z"}},
		{"zero time, channel", "/__sim/clock", map[string]any{"time": "0001-01-01T00:00:00Z", "channel": "DEMOBANK"}},
		{"far future", "/__sim/clock", map[string]any{"mode": "frozen", "time": "9999-12-31T23:00:00Z"}},
		{"far future, channel", "/__sim/clock", map[string]any{"time": "9999-12-31T23:00:00Z", "channel": "DEMOBANK"}},
		{"before 1970", "/__sim/clock", map[string]any{"time": "1900-01-01T00:00:00Z"}},
		{"advance past the end", "/__sim/clock/advance", map[string]any{"by": "2500000h"}},
		{"advance before the start, channel", "/__sim/clock/advance", map[string]any{"by": "-700000h", "channel": "DEMOBANK"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			channel, _ := c.body["channel"].(string)
			before := clockNow(channel)
			st, out := ctl(t, s, "POST", c.path, c.body)
			if st != http.StatusBadRequest || !bytes.Contains(out, []byte("1970-01-01 to 2262-01-01 (UTC)")) {
				t.Errorf("%s %v: HTTP %d %s, want 400 naming the range", c.path, c.body, st, out)
			}
			if after := clockNow(channel); after != before {
				t.Errorf("clock moved by a refused call: %s, then %s", before, after)
			}
		})
	}
	if _, err := s.Client.ReferenceToken(bg); err != nil {
		t.Fatalf("service after refused moves: %v", err)
	}
}
