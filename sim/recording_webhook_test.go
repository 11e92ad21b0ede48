package sim_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/recordings"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: SIM-4, WH-4
// Issue 12's done-when: a flow recorded live with GetReward, reveal,
// listing, coupon claim and a delivered COUPON_INVALIDATED push (after
// which getUserCoupons answers "invalidated") exports the push as a
// control step where it was delivered, and replays clean into the same
// instance twice in a row, each replay pushing for its own channel. The
// same recording without that step differs at getUserCoupons.
func TestRecording_SIM4_webhookPushReplaysCleanTwice(t *testing.T) {
	rc := newReceiver(t, answerOK)
	data, err := os.ReadFile(filepath.Join("..", "scenarios", "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const after = "    secKey: DEMOSECKEY\n"
	if !strings.Contains(string(data), after) {
		t.Fatalf("default.yaml has no %q", after)
	}
	yaml := strings.Replace(string(data), after, after+"    webhookUrl: "+rc.URL+"\n", 1)

	rec := simtest.New(t, simtest.WithScenarioYAML(yaml))
	fullFlow(t, rec.Client)
	schedule(t, rec, map[string]any{"channel": "DEMOBANK", "offerId": "OFFER-DEMO", "reason": "BRAND_CALLED_OUT"})
	// The push is delivered in the background: wait for its journal entry,
	// so the recording holds it before the getUserCoupons that follows.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, raw := ctl(t, rec, "GET", "/__sim/journal?kind=webhook", nil)
		var page struct{ Entries []json.RawMessage }
		if json.Unmarshal(raw, &page) == nil && len(page.Entries) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the push was not journaled")
		}
	}
	list, err := rec.Client.UserCoupons(context.Background(), "VU-1", "OFFER-DEMO")
	if err != nil || len(list) != 1 || list[0].State != "invalidated" {
		t.Fatalf("getUserCoupons after the push: %v %+v", err, list)
	}
	if len(rc.got()) != 1 {
		t.Fatalf("recorded flow delivered %d pushes, want 1", len(rc.got()))
	}
	exported := exportSession(t, rec, "webhook-flow")

	var doc struct {
		Steps []map[string]any `json:"steps"`
	}
	if err := json.Unmarshal(exported, &doc); err != nil {
		t.Fatal(err)
	}
	push := -1
	var eps []string
	for i, st := range doc.Steps {
		ep, _ := st["endpoint"].(string)
		eps = append(eps, ep)
		if st["host"] == "control" {
			if push >= 0 {
				t.Fatalf("two control steps for one push: %s", exported)
			}
			push = i
			body, _ := st["body"].(map[string]any)
			if st["path"] != "/__sim/webhooks" || body["channel"] != "DEMOBANK" || body["offerId"] != "OFFER-DEMO" ||
				body["eventType"] != "COUPON_INVALIDATED" || body["reason"] != "BRAND_CALLED_OUT" {
				t.Fatalf("push step %v", st)
			}
		}
	}
	want := []string{"GetReward", "GetAllScratchCardsByUserId", "FetchRewardInfo", "fetchCouponCode", "getUserCoupons", "webhook push", "getUserCoupons"}
	if push < 0 || !containsInOrder(eps, want) || push != len(doc.Steps)-2 {
		t.Fatalf("steps %v: want %v in order, the push second to last", eps, want)
	}

	target := simtest.New(t)
	o := recordings.ReplayOptions{
		Target:   strings.Join([]string{target.RewardsURL, target.BankURL, target.HotdealsURL}, ","),
		Control:  target.ControlURL,
		Scenario: []byte(yaml),
	}
	for round := 1; round <= 2; round++ {
		res, err := recordings.Replay(context.Background(), exported, o)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if !res.OK() || res.Steps != len(doc.Steps) {
			t.Fatalf("round %d: %d of %d steps\n%s", round, res.Steps, len(doc.Steps), res.Report)
		}
		got := rc.got()
		var ev map[string]any
		decodeInto(t, got[len(got)-1], &ev)
		if len(got) != 1+round || ev["channelName"] == "DEMOBANK" || ev["eventType"] != "COUPON_INVALIDATED" {
			t.Fatalf("round %d: %d pushes, the last %v: want one more, for the replay's own channel", round, len(got), ev)
		}
	}

	// Without the push step the replay differs where the push showed.
	doc.Steps = append(doc.Steps[:push], doc.Steps[push+1:]...)
	var full map[string]any
	if err := json.Unmarshal(exported, &full); err != nil {
		t.Fatal(err)
	}
	full["steps"] = doc.Steps
	without, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	res, err := recordings.Replay(context.Background(), without, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.OK() || !strings.Contains(res.Report, "getUserCoupons") || !strings.Contains(res.Report, "invalidated") {
		t.Fatalf("without the push step the replay should differ at getUserCoupons:\n%s", res.Report)
	}
	if res, err := recordings.Replay(context.Background(), exported, recordings.ReplayOptions{Target: o.Target, Shared: true}); err != nil || res.OK() ||
		!strings.Contains(res.Report, "needs the target's control API") {
		t.Fatalf("a push step without a control API: %v\n%v", err, res)
	}
}
