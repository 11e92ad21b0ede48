package sim_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// /metrics shows each endpoint's answered latency (the histogram) beside
// its configured profile (issue 53 item 4), and the profile is what the
// answers took: three GetReward calls under a fixed 40ms profile sum to
// at least 120ms.
func TestMetrics_latencyProfileBesideTheAnsweredHistogram(t *testing.T) {
	e := newCardEnv(t)
	ctlOK(t, e.s, http.StatusOK, "POST", "/__sim/latency", map[string]any{"endpoint": "GetReward", "fixed": "40ms"})
	ctlOK(t, e.s, http.StatusOK, "POST", "/__sim/latency", map[string]any{"endpoint": "*", "channel": "DEMOBANK", "lognormal": map[string]any{"median": "1ms", "p99": "3ms"}, "seed": 3})
	st, raw := ctl(t, e.s, "POST", "/__sim/latency", map[string]any{"endpoint": "GetRewrd", "fixed": "1ms"})
	if st != http.StatusBadRequest || !strings.Contains(string(raw), "did you mean GetReward?") {
		t.Errorf("an unknown endpoint: HTTP %d %s", st, raw)
	}
	ctlOK(t, e.s, http.StatusOK, "DELETE", "/__sim/latency?endpoint=*&channel="+"DEMOBANK", nil)
	for _, v := range []string{"lm-a", "lm-b", "lm-c"} {
		e.issue(v, "UPI")
	}
	ctlOK(t, e.s, http.StatusOK, "GET", "/__sim/journal?limit=1", nil) // flushes the observers
	st, raw = ctl(t, e.s, "GET", "/__sim/metrics", nil)
	if st != http.StatusOK {
		t.Fatalf("metrics: HTTP %d", st)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	prof := fams["rewardsim_latency_profile_seconds"]
	if prof == nil {
		t.Fatal("no rewardsim_latency_profile_seconds")
	}
	var shown int
	for _, m := range prof.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["from"] == "runtime" && labels["endpoint"] == "GetReward" {
			shown++
			if v := m.GetGauge().GetValue(); v != 0.04 {
				t.Errorf("configured %s quantile %v, want 0.04", labels["quantile"], v)
			}
		}
		if labels["channel"] == "DEMOBANK" {
			t.Errorf("a removed profile is still shown: %v", labels)
		}
	}
	if shown != 2 {
		t.Errorf("GetReward's profile shown %d times, want its median and p99", shown)
	}
	var sum float64
	var count uint64
	for _, m := range fams["rewardsim_request_duration_seconds"].Metric {
		for _, l := range m.Label {
			if l.GetName() == "endpoint" && l.GetValue() == "GetReward" {
				sum += m.GetHistogram().GetSampleSum()
				count += m.GetHistogram().GetSampleCount()
			}
		}
	}
	if count != 3 || sum < 0.12 {
		t.Errorf("GetReward answered %d calls in %vs in all, want 3 of at least 40ms each", count, sum)
	}
}

// The dashboard's latency panel sets each profile beside what its
// endpoint answered (issue 53 item 4).
func TestDashboard_latencyPanel(t *testing.T) {
	e := newCardEnv(t)
	get := func() string {
		res, err := http.Get(e.s.ControlURL + "/__sim/")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		return string(raw)
	}
	if page := get(); !strings.Contains(page, "No profile set") {
		t.Error("with no profile the panel does not say so")
	}
	ctlOK(t, e.s, http.StatusOK, "POST", "/__sim/latency", map[string]any{"endpoint": "GetReward", "channel": "DEMOBANK", "fixed": "30ms"})
	e.issue("lp-a", "UPI")
	e.issue("lp-b", "UPI")
	ctlOK(t, e.s, http.StatusOK, "GET", "/__sim/journal?limit=1", nil)
	page := get()
	i := strings.Index(page, `<tr data-latency="GetReward" `)
	if i < 0 {
		t.Fatalf("no GetReward row in the latency panel")
	}
	row := page[i : i+strings.Index(page[i:], "</tr>")]
	for _, want := range []string{"run time", "DEMOBANK", "fixed", "30ms / 30ms", "<td>2</td>"} {
		if !strings.Contains(row, want) {
			t.Errorf("the row lacks %q: %s", want, row)
		}
	}
}
