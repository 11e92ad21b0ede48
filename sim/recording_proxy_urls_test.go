package sim_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/recordings"
)

// clause: SIM-4, TRK-1
// The record proxy points the upstream's absolute URLs in its answers at
// itself: a card's trackLink names the proxy, so the app's impression GET
// comes through it and is recorded (it went straight to the upstream and
// was missing, silently), and the recording says what was rewritten.
func TestRecord_SIM4_proxyRewritesUpstreamURLsToItself(t *testing.T) {
	_, r, c, proxyURL := proxied(t)
	ctx := context.Background()
	ref, err := c.ReferenceToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	amount := 100.0
	_, won, err := c.GetReward(ctx, ref.ReferenceKey, publisher.GetRewardRequest{ChannelName: "DEMOBANK", VirtualID: "VU-1", TriggerEventType: "UPI",
		ExtTransactionID: "TX-PROXY", Amount: &amount, DateAndTime: "15012026100000"})
	if err != nil || len(won.Rewards) == 0 || len(won.Rewards[0].TrackLink) == 0 {
		t.Fatalf("GetReward: %v %+v", err, won)
	}
	link := won.Rewards[0].TrackLink[0]
	if !strings.HasPrefix(link, proxyURL+"/") {
		t.Fatalf("trackLink %q does not name the proxy %s", link, proxyURL)
	}
	res, err := http.Get(link) // the app fires the impression as given
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if r.Len() != 3 {
		t.Fatalf("recorded %d exchanges, want 3 (the impression GET included)", r.Len())
	}
	data, err := r.Recording("proxied", "")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Proxy *recordings.ProxyNote
		Steps []struct{ Method, Path string }
	}
	if err := json.Unmarshal(data, &doc); err != nil || doc.Proxy == nil || doc.Proxy.Rewritten == 0 || len(doc.Proxy.Upstream) != 3 {
		t.Fatalf("the recording does not say what the proxy rewrote: %v %+v", err, doc.Proxy)
	}
	if last := doc.Steps[len(doc.Steps)-1]; last.Method != "GET" {
		t.Errorf("the last step is %+v, want the impression GET", last)
	}
}
