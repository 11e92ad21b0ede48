package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// Issue 42, item 3: 80 pushes to a receiver that never answers (eight
// workers, 5 s each, once made another channel's push due now wait 48 s)
// hold only their channel's share of the workers: a push to a healthy
// receiver on another channel is delivered at once.
func TestServe_webhookDeliveryFairAcrossChannels(t *testing.T) {
	cmd, urls := startServe(t, issue20Binary(t), t.TempDir())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	control := urls["control"]
	healthy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"status":"OK"}`))
	}))
	defer healthy.Close()
	registerWebhookChannel(t, control, "SILENT", silentReceiver(t))
	registerWebhookChannel(t, control, "HEALTHY", healthy.URL+"/hook")
	for range 8 {
		st, out, _ := ctlCall(t, control, "POST", "/__sim/webhooks", map[string]any{"channel": "SILENT", "offerId": "O1", "reason": "OUT_OF_STOCK", "repeat": 10})
		if st != http.StatusCreated {
			t.Fatalf("schedule SILENT: HTTP %d %s", st, out)
		}
	}
	time.Sleep(200 * time.Millisecond) // SILENT's attempts take what workers they may
	start := time.Now()
	st, out, _ := ctlCall(t, control, "POST", "/__sim/webhooks", map[string]any{"channel": "HEALTHY", "offerId": "O1", "reason": "OUT_OF_STOCK"})
	var a struct{ Pushes []struct{ ID string } }
	if err := json.Unmarshal(out, &a); st != http.StatusCreated || err != nil || len(a.Pushes) != 1 {
		t.Fatalf("schedule HEALTHY: HTTP %d %s", st, out)
	}
	st, out, _ = ctlCall(t, control, "GET", "/__sim/webhooks/"+a.Pushes[0].ID+"?wait=8s", nil)
	var p struct{ State string }
	took := time.Since(start)
	if err := json.Unmarshal(out, &p); st != http.StatusOK || err != nil || p.State != "delivered" || took > 2*time.Second {
		t.Fatalf("HEALTHY's push beside 80 silent ones: HTTP %d after %v: %s, want delivered at once", st, took, out)
	}
	t.Logf("HEALTHY's push delivered %v after it was scheduled, beside 80 pushes to a silent receiver", took.Round(time.Millisecond))
}
