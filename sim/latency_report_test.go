package sim_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/simtest"
)

// The report says when a client's timeout is shorter than the latency
// profile's p99 (issue 53 item 4): a client that gives up after 100ms on
// a getCatalogue held 400ms is journaled clientGone, and the report
// names it against the 400ms p99; without a profile the same hang-up is
// no finding.
func TestReport_clientTimeoutBelowTheLatencyP99(t *testing.T) {
	s := simtest.New(t)
	call := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.HotdealsURL+"/api/getCatalogue", strings.NewReader(`{"channelName":"DEMOBANK"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-CHANNELID", "DEMOBANK")
		req.Header.Set("Authorization", "ServiceAppKey DEMOAPPKEY:DEMOSECKEY")
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
			t.Fatal("the call was answered within the client's 100ms")
		}
	}
	finding := func() (int, string) {
		time.Sleep(200 * time.Millisecond) // the server notes the hang-up when its wait ends
		_, raw := ctl(t, s, "GET", "/__sim/report", nil)
		var r struct {
			Findings []struct {
				ID      string
				Count   int
				Example struct{ Detail string }
			}
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		for _, f := range r.Findings {
			if f.ID == "client-timeout-below-latency-p99" {
				return f.Count, f.Example.Detail
			}
		}
		return 0, ""
	}
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/latency", map[string]any{"endpoint": "getCatalogue", "fixed": "400ms"})
	call()
	// The profile is gone (so none now governs): the same hang-up is no finding.
	ctlOK(t, s, http.StatusOK, "DELETE", "/__sim/latency", nil)
	if n, _ := finding(); n != 0 {
		t.Errorf("with no profile in force the report still finds %d", n)
	}
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/latency", map[string]any{"endpoint": "getCatalogue", "fixed": "400ms"})
	n, detail := finding()
	if n != 1 || !strings.Contains(detail, "the profile's p99 is 400ms") {
		t.Errorf("finding %d: %q; want 1 naming the 400ms p99", n, detail)
	}
}
