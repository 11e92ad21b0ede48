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
// would break: such a move is a 400, and the simulator keeps answering.
func TestClock_SIM3_rangeIsGuarded(t *testing.T) {
	s := simtest.New(t)
	for _, c := range []struct {
		path string
		body map[string]any
	}{
		{"/__sim/clock", map[string]any{"mode": "frozen", "time": "9999-12-31T23:00:00Z"}},
		{"/__sim/clock", map[string]any{"time": "1900-01-01T00:00:00Z"}},
		{"/__sim/clock/advance", map[string]any{"by": "2500000h"}},
	} {
		if st, out := ctl(t, s, "POST", c.path, c.body); st != http.StatusBadRequest {
			t.Errorf("%s %v: HTTP %d %s, want 400", c.path, c.body, st, out)
		}
	}
	if st, out := ctl(t, s, "GET", "/__sim/clock", nil); st != http.StatusOK {
		t.Fatalf("clock after refused moves: HTTP %d %s", st, out)
	}
	if _, err := s.Client.ReferenceToken(bg); err != nil {
		t.Fatalf("service after refused moves: %v", err)
	}
}
