package sim_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: SIM-3, SIM-4
// GET /__sim/live streams one "entry" event per stored journal entry, and
// an open stream does not keep the simulator from stopping.
func TestLive_streamsEntriesAndEndsOnClose(t *testing.T) {
	s := simtest.New(t)
	res, err := http.Get(s.ControlURL + "/__sim/live")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); res.StatusCode != http.StatusOK || ct != "text/event-stream" {
		t.Fatalf("live: HTTP %d %s", res.StatusCode, ct)
	}
	if _, err := s.Client.ReferenceToken(bg); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(res.Body)
	var event, data string
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			event = v
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			data = v
			break
		}
	}
	var ev struct {
		Seq      uint64
		Kind     string
		Endpoint string
		Status   int
	}
	if err := json.Unmarshal([]byte(data), &ev); err != nil || event != "entry" || ev.Endpoint != "getSecuredReferenceToken" || ev.Status != 200 || ev.Seq != 1 {
		t.Fatalf("event %q data %q (%v), want the entry of getSecuredReferenceToken", event, data, err)
	}
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(time.Minute): // a hang detector, not a timing assertion
		t.Fatal("the simulator did not stop while a live stream was open")
	}
}
