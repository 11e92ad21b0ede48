package sim_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: SIM-3, AUTH-3
// A scenario activated for one channel governs that channel with that
// scenario's entry for it (its keys included), and lends nothing to the
// other channels it lists.
func TestPerChannelScenarioGovernsOnlyItsChannel_SIM3(t *testing.T) {
	s := simtest.New(t)
	if st, out := ctl(t, s, "POST", "/__sim/scenarios?name=other.yaml&activate=true&channel=DEMOBANK", `version: 1
name: other
channels:
  - {name: DEMOBANK, certificateFile: "builtin:publisher-dev.crt", appKey: NEWAPP, secKey: NEWSEC}
  - {name: YBANK, certificateFile: "builtin:publisher-dev.crt", appKey: YAPP, secKey: YSEC}
offers:
  DEMOBANK: [{id: OFFER-X, title: X, coins: 100, stock: 10}]
  YBANK: [{id: OFFER-Y, title: Y, coins: 100, stock: 10}]
`); st != http.StatusCreated && st != http.StatusOK {
		t.Fatalf("upload: HTTP %d %s", st, out)
	}
	claim := func(c publisher.Client, offer string) error {
		_, err := c.FetchCouponCode(bg, publisher.CouponRequest{OfferID: offer, VirtualID: "VU-1", ChannelName: c.Channel, ExtTransactionID: "T-" + c.AppKey, CoinsUsed: "100"})
		return err
	}
	demoNew := *s.Client
	demoNew.AppKey, demoNew.SecKey = "NEWAPP", "NEWSEC"
	if err := claim(demoNew, "OFFER-X"); err != nil {
		t.Fatalf("DEMOBANK with its own scenario's keys, on its own scenario's offer: %v", err)
	}
	var ce *publisher.CouponError
	if err := claim(*s.Client, "OFFER-X"); !errorsAs(err, &ce) || ce.ErrorCode != "UNAUTHORIZED" {
		t.Fatalf("DEMOBANK with the default scenario's keys: %v, want UNAUTHORIZED", err)
	}
	y := *s.Client
	y.ChannelID, y.Channel, y.AppKey, y.SecKey = "YBANK", "YBANK", "YAPP", "YSEC"
	if err := claim(y, "OFFER-Y"); !errorsAs(err, &ce) || ce.ErrorCode != "UNAUTHORIZED" {
		t.Fatalf("YBANK, listed only by a scenario active for another channel: %v, want UNAUTHORIZED", err)
	}
}

// clause: CPN-5
// A replayed extTransactionId from another user is a duplicate: the first
// user's coupon is never handed to them.
func TestCouponReplayByAnotherUserIsADuplicate_CPN5(t *testing.T) {
	s := simtest.New(t)
	first, err := s.Client.FetchCouponCode(bg, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-A", ChannelName: "DEMOBANK", ExtTransactionID: "SHARED", CoinsUsed: "100"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Client.FetchCouponCode(bg, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-B", ChannelName: "DEMOBANK", ExtTransactionID: "SHARED", CoinsUsed: "100"})
	var ce *publisher.CouponError
	if !errorsAs(err, &ce) || ce.Status != 409 || ce.ErrorCode != "DUPLICATE_TRANSACTION" || got.CouponCode == first.CouponCode {
		t.Fatalf("replay by another user: %+v %v, want 409 DUPLICATE_TRANSACTION", got, err)
	}
	again, err := s.Client.FetchCouponCode(bg, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-A", ChannelName: "DEMOBANK", ExtTransactionID: "SHARED", CoinsUsed: "100"})
	if err != nil || again.CouponCode != first.CouponCode {
		t.Fatalf("the first user's own replay: %+v %v, want the earlier coupon", again, err)
	}
}

// clause: SIM-3
// The clock cannot be set or advanced where answers and the saved clock
// would break: such a move is a 400, and the simulator keeps answering.
func TestClockRangeIsGuarded_SIM3(t *testing.T) {
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

// clause: SIM-2, WH-2
// A channel reset while one of its pushes is being delivered is final:
// the delivery's write-back does not bring the push back.
func TestResetDuringDeliveryIsFinal_SIM2(t *testing.T) {
	s := simtest.New(t)
	arrived, release := make(chan struct{}), make(chan struct{})
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-release
		w.Write([]byte(`{"status":"FAIL"}`)) // a non-OK answer would schedule a retry
	}))
	defer rc.Close()
	registerChannel(t, s, "CIR", 0, rc.URL)
	// Due in an hour, so scheduling does not deliver it; moving the clock does.
	schedule(t, s, map[string]any{"channel": "CIR", "offerId": "O1", "reason": "OUT_OF_STOCK",
		"at": simtest.Start.Add(time.Hour).Format(time.RFC3339), "retry": map[string]any{"kind": "fixed", "interval": "1m"}})
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctl(t, s, "POST", "/__sim/clock/advance", map[string]any{"by": "1h"})
	}()
	<-arrived // the delivery is in flight
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/state/reset", map[string]any{"channel": "CIR"})
	close(release)
	<-done
	var list struct{ Pushes []json.RawMessage }
	decodeInto(t, ctlOKRaw(t, s, "/__sim/webhooks?channel=CIR"), &list)
	if len(list.Pushes) != 0 {
		t.Fatalf("pushes after a reset during delivery: %s", list.Pushes)
	}
}

// ctlOKRaw GETs a control path and returns the 200 answer's body.
func ctlOKRaw(t *testing.T, s *simtest.Server, path string) []byte {
	t.Helper()
	st, out := ctl(t, s, "GET", path, nil)
	if st != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d %s", path, st, out)
	}
	return out
}

// clause: SIM-3, SIM-4
// Control-API inputs found by review: the last possible page number is an
// empty page (not the first page again), a scenario cannot be activated
// for a channel nobody knows, and a commit-then-delay rule needs a delay.
func TestControlInputEdges_SIM3(t *testing.T) {
	s := simtest.New(t)
	if _, err := s.Client.ReferenceToken(bg); err != nil {
		t.Fatal(err)
	}
	var page struct{ Entries []json.RawMessage }
	decodeInto(t, ctlOKRaw(t, s, "/__sim/journal?after=18446744073709551615"), &page)
	if len(page.Entries) != 0 {
		t.Errorf("after the largest sequence number: %d entries, want none", len(page.Entries))
	}
	if st, out := ctl(t, s, "POST", "/__sim/scenarios?name=x.yaml&activate=true&channel=NOPE", `version: 1
name: x
channels: [{name: DEMOBANK, certificateFile: "builtin:publisher-dev.crt"}]
`); st != http.StatusNotFound {
		t.Errorf("activate an upload for an unknown channel: HTTP %d %s, want 404", st, out)
	}
	if st, out := ctl(t, s, "POST", "/__sim/faults", map[string]any{"endpoint": "fetchCouponCode", "action": map[string]any{"kind": "commit-then-delay"}}); st != http.StatusBadRequest {
		t.Errorf("commit-then-delay without a delay: HTTP %d %s, want 400", st, out)
	}
}

// clause: SIM-2, SIM-3
// Fault counters saved by concurrent fires land in order (the restart sees
// every fire), and a rule deleted while it fires stays deleted.
func TestFaultCountersUnderConcurrency_SIM2(t *testing.T) {
	dir := t.TempDir()
	s := simtest.New(t, simtest.WithDataDir(dir))
	ie := map[string]any{"kind": "internal-error"}
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{"id": "count", "endpoint": "GenerateSessionInfoV2", "virtualId": "VU-C", "action": ie})
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{"id": "gone", "endpoint": "GenerateSessionInfoV2", "virtualId": "VU-G", "action": ie})
	var wg sync.WaitGroup
	for i := 0; i < 24; i++ {
		wg.Go(func() { _, _ = s.Client.Session(bg, "VU-C") })
		wg.Go(func() { _, _ = s.Client.Session(bg, "VU-G") })
		if i == 12 {
			ctlOK(t, s, http.StatusNoContent, "DELETE", "/__sim/faults/gone", nil)
		}
	}
	wg.Wait()
	s.Close()
	s = simtest.New(t, simtest.WithDataDir(dir))
	rules := ctlOK(t, s, http.StatusOK, "GET", "/__sim/faults", nil)["rules"].([]any)
	if len(rules) != 1 {
		t.Fatalf("rules after restart: %v, want only %q (the deleted one stays deleted)", rules, "count")
	}
	if r := rules[0].(map[string]any); r["id"] != "count" || r["fired"] != 24.0 {
		t.Fatalf("rule after restart: %v, want fired 24", r)
	}
}
