package sim_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	jrnl "github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// clause: SIM-3, SIM-4, WH-2
// After a scripted run (cards issued and revealed, a fault firing, an
// unknown path, a webhook refused by its receiver), GET /__sim/metrics
// parses as the Prometheus text format and its counters agree with the
// journal entry for entry.
func TestMetrics_countersMatchTheJournal(t *testing.T) {
	e := newCardEnv(t)
	ctlOK(t, e.s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{
		"id": "metrics-fault", "endpoint": "GetReward", "virtualId": "m-fault", "action": map[string]any{"kind": "internal-error"}})
	a := e.issue("m-a", "UPI")
	e.issue("m-b", "UPI")
	e.mustReveal(e.userToken("m-a"), "m-a", a)
	if res, _, _ := e.s.Client.GetReward(e.ctx, e.refToken(e.s.Client), e.req("m-fault", "UPI")); res == nil {
		t.Fatal("faulted GetReward: no answer")
	}
	// A coupon errorCode under the contract, injected and real.
	ctlOK(t, e.s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{
		"endpoint": "fetchCouponCode", "virtualId": "m-ex", "action": map[string]any{"kind": "coupon-error", "errorCode": "COUPON_EXHAUSTED"}})
	if _, err := e.s.Client.FetchCouponCode(e.ctx, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "m-ex", ExtTransactionID: "TX-M-1", CoinsUsed: "100"}); err == nil {
		t.Fatal("the coupon-error fault did not fire")
	}
	if _, err := e.s.Client.FetchCouponCode(e.ctx, publisher.CouponRequest{OfferID: "NO-SUCH-OFFER", VirtualID: "m-b", ExtTransactionID: "TX-M-2", CoinsUsed: "100"}); err == nil {
		t.Fatal("an unknown offer was claimed")
	}
	if res, err := http.Get(e.s.RewardsURL + "/no/such/path"); err == nil {
		res.Body.Close()
	}
	rc := newReceiver(t, answerNotOK)
	registerChannel(t, e.s, "METRICSWH", 0, rc.URL)
	schedule(t, e.s, map[string]any{"channel": "METRICSWH", "offerId": "O1", "reason": "OUT_OF_STOCK", "retry": map[string]any{"kind": "none"}})
	ctlOK(t, e.s, http.StatusOK, "POST", "/__sim/webhooks/run", nil)

	// The journal read flushes the writer, and the observers that count
	// run before the flush returns.
	st, raw := ctl(t, e.s, "GET", "/__sim/journal?limit=1000", nil)
	if st != http.StatusOK {
		t.Fatalf("journal: HTTP %d", st)
	}
	var page struct {
		Entries []jrnl.Entry
		Stored  int
	}
	decodeInto(t, raw, &page)
	want := map[string]float64{}
	for _, en := range page.Entries {
		switch en.Kind {
		case "exchange":
			host, ep := en.Host, en.Endpoint
			if host == "" {
				host = en.Listener
			}
			if ep == "" {
				ep = "other"
			}
			want[fmt.Sprintf("rewardsim_requests_total{endpoint=%s,error_code=%s,host=%s,outcome=%s,status=%d}", ep, en.ErrorCode, host, en.Outcome, en.Status)]++
			want[fmt.Sprintf("rewardsim_request_duration_seconds{endpoint=%s,host=%s}", ep, host)]++
			if en.Fault != "" {
				want[fmt.Sprintf("rewardsim_faults_fired_total{endpoint=%s,fault=%s}", ep, en.Fault)]++
			}
		case "webhook":
			outcome := "refused"
			if en.Error == "" && en.Status == 200 {
				outcome = "ok"
			}
			want[fmt.Sprintf("rewardsim_webhook_attempts_total{outcome=%s}", outcome)]++
		}
	}
	if want["rewardsim_webhook_attempts_total{outcome=refused}"] != 1 {
		t.Fatalf("the run journaled no refused webhook attempt: %v", want)
	}
	for _, k := range []string{
		"rewardsim_requests_total{endpoint=fetchCouponCode,error_code=COUPON_EXHAUSTED,host=hotdeals,outcome=fault,status=200}",
		"rewardsim_requests_total{endpoint=fetchCouponCode,error_code=INVALID_OFFER,host=hotdeals,outcome=refusal,status=200}",
		"rewardsim_requests_total{endpoint=GetReward,error_code=,host=rewards,outcome=fault,status=500}",
		"rewardsim_requests_total{endpoint=GetReward,error_code=,host=rewards,outcome=success,status=200}",
	} {
		if want[k] == 0 {
			t.Errorf("the run journaled no %s: %v", k, want)
		}
	}
	if want["rewardsim_faults_fired_total{endpoint=GetReward,fault=internal-error}"] != 1 {
		t.Fatalf("the run journaled no internal-error fault on GetReward: %v", want)
	}

	families := scrape(t, e.s.ControlURL+"/__sim/metrics")
	got := map[string]float64{}
	for _, name := range []string{"rewardsim_requests_total", "rewardsim_faults_fired_total", "rewardsim_webhook_attempts_total", "rewardsim_request_duration_seconds"} {
		mf := families[name]
		if mf == nil {
			t.Fatalf("no metric family %s", name)
		}
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			key := name + "{" + strings.Join(labels, ",") + "}"
			switch {
			case m.Counter != nil:
				got[key] = m.GetCounter().GetValue()
			case m.Histogram != nil:
				got[key] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, journal says %v", k, got[k], v)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s = %v, which the journal has no entry for", k, v)
		}
	}
	for name, v := range map[string]float64{
		"rewardsim_cards_issued": 2, "rewardsim_cards_revealed": 1, "rewardsim_coupons_claimed": 0,
		"rewardsim_journal_entries": float64(page.Stored),
	} {
		if mf := families[name]; mf == nil || mf.GetMetric()[0].GetGauge().GetValue() != v {
			t.Errorf("%s = %v, want %v", name, mf, v)
		}
	}
	if mf := families["rewardsim_store_bytes"]; mf == nil || mf.GetMetric()[0].GetGauge().GetValue() <= 0 {
		t.Errorf("rewardsim_store_bytes = %v, want the state file's size", mf)
	}
}

// scrape reads a metrics page with the Prometheus text-format parser.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("metrics: HTTP %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("metrics do not parse as the Prometheus text format: %v", err)
	}
	return families
}
