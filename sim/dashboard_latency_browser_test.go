package sim_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/browser"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// The dashboard's Latency panel is live (issue 53 item 4): opened once in
// a real (headless) browser, its answered count, median and p99 follow
// the calls a profile holds, and a profile set while the page is open
// shows, and one removed goes, without a reload (a value planted in the page's window
// survives). Screenshot under fixtures/artifacts/screenshots.
func TestDashboardLatency_refreshesLive(t *testing.T) {
	s := simtest.New(t)
	ctx := context.Background()
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/latency", map[string]any{"endpoint": "getCatalogue", "lognormal": map[string]any{"median": "30ms", "p99": "90ms"}, "seed": 3})

	b := browser.Start(t)
	b.Resize(1280, 1000)
	b.Open(s.ControlURL + "/__sim/dashboard")
	b.WaitFor(`#live[data-state="open"]`, wait)
	b.Eval(`window.plantedBeforeUpdates = 42; return null;`, nil)
	row := `#latency tr[data-latency="getCatalogue"]`
	if got := b.WaitFor(row+`[data-answered="0"]`, wait).Text(); !strings.Contains(got, "none yet") {
		t.Errorf("before any call the row reads %q, want none answered yet", got)
	}

	const calls = 5
	for range calls {
		if _, err := s.Client.Catalogue(ctx, ""); err != nil {
			t.Fatal(err)
		}
	}
	got := b.WaitFor(fmt.Sprintf(`%s[data-answered="%d"]`, row, calls), wait).Text()
	if !strings.Contains(got, "lognormal") || strings.Contains(got, "none yet") {
		t.Errorf("after %d calls the row reads %q, want the profile beside the answered median and p99", calls, got)
	}

	// A profile set while the page is open shows at once: no call of its
	// endpoint is needed to refresh the panel.
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/latency", map[string]any{"endpoint": "GetReward", "channel": "DEMOBANK", "fixed": "250ms"})
	if got := b.WaitFor(`#latency tr[data-latency="GetReward"][data-latency-channel="DEMOBANK"]`, wait).Text(); !strings.Contains(got, "250ms") {
		t.Errorf("the profile set while the page was open reads %q, want its 250ms", got)
	}
	b.Eval(`document.getElementById("latency").scrollIntoView(); return null;`, nil)
	t.Logf("screenshot %s", b.Screenshot(screenshotDir, "dashboard-latency-live"))
	ctlOK(t, s, http.StatusOK, "DELETE", "/__sim/latency?endpoint=getCatalogue", nil)
	waitGone(t, b, row)

	var planted float64
	b.Eval(`return window.plantedBeforeUpdates || 0;`, &planted)
	if planted != 42 {
		t.Fatal("the page was reloaded: the value planted before the updates is gone")
	}
}

// waitGone waits until no element matches css.
func waitGone(t *testing.T, b *browser.Browser, css string) {
	t.Helper()
	for deadline := time.Now().Add(wait); b.Count(css) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s still shown after %v", css, wait)
		}
	}
}

// GET /__sim/live says "change" when a latency profile is set or removed
// (no journal entry records either), without an id, so a page that
// reconnects resumes after its last entry.
func TestLiveStream_latencyChangeIsAnEvent(t *testing.T) {
	s := simtest.New(t)
	req, err := http.NewRequest(http.MethodGet, s.ControlURL+"/__sim/live", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	lines := bufio.NewScanner(res.Body)
	next := func() string {
		for lines.Scan() {
			if l := lines.Text(); l != "" && !strings.HasPrefix(l, "retry:") && !strings.HasPrefix(l, ":") {
				return l
			}
		}
		t.Fatalf("the stream ended: %v", lines.Err())
		return ""
	}
	for _, change := range []struct {
		method, path string
		body         any
	}{
		{"POST", "/__sim/latency", map[string]any{"endpoint": "getCatalogue", "fixed": "5ms"}},
		{"DELETE", "/__sim/latency?endpoint=getCatalogue", nil},
	} {
		ctlOK(t, s, http.StatusOK, change.method, change.path, change.body)
		if got := next() + "\n" + next(); got != "event: change\ndata: {\"change\":\"latency\"}" {
			t.Errorf("%s %s: the stream said %q", change.method, change.path, got)
		}
	}
}
