package sim_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/internal/golden"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// receiver is a publisher's webhook endpoint on loopback.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func newReceiver(t testing.TB, answer func(n int, w http.ResponseWriter, r *http.Request)) *receiver {
	rc := &receiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.bodies = append(rc.bodies, body)
		n := len(rc.bodies)
		rc.mu.Unlock()
		answer(n, w, r)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) got() [][]byte {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([][]byte(nil), rc.bodies...)
}

// The receivers of WH-2: correct, slow, failing, non-OK and not JSON.
var (
	answerOK = func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"OK"}`))
	}
	answerSlow = func(_ int, w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // answers only after the simulator gave up
	}
	answerFail = func(_ int, w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"status":"ERROR"}`, http.StatusInternalServerError)
	}
	answerNotOK = func(_ int, w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"status":"FAIL"}`)) }
	answerText  = func(_ int, w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`OK`)) }
	answerLater = func(n int, w http.ResponseWriter, r *http.Request) { // fails once, then recovers
		if n == 1 {
			answerFail(n, w, r)
			return
		}
		answerOK(n, w, r)
	}
)

type push struct {
	ID    string
	State string
	Due   time.Time
	Event map[string]any
	Retry struct {
		Kind        string
		MaxAttempts int
	}
	Attempts []struct {
		N         int
		Status    int
		Body      string
		LatencyMs float64
		Error     string
		OK        bool
		URL       string
	}
	Findings    []string
	Invalidated bool
}

// schedule schedules a push and waits (up to 10 s) for the attempts of
// what became due, so the answer shows them: the call's default is to
// answer at once (TestWebhook_controlCallsDoNotWait).
func schedule(t *testing.T, s *simtest.Server, req map[string]any) []push {
	t.Helper()
	st, out := ctl(t, s, "POST", "/__sim/webhooks?wait=10s", req)
	if st != http.StatusCreated {
		t.Fatalf("schedule %v: HTTP %d %s", req, st, out)
	}
	var res struct{ Pushes []json.RawMessage }
	decodeInto(t, out, &res)
	var ps []push
	for _, raw := range res.Pushes {
		ps = append(ps, checkPush(t, raw))
	}
	return ps
}

// checkPush validates a push record against its schema and decodes it.
func checkPush(t *testing.T, raw []byte) push {
	t.Helper()
	if err := controlSchemas().ValidateJSON("control.webhook.push", raw); err != nil {
		t.Errorf("push record outside control.webhook.push.json: %v: %s", err, raw)
	}
	var p push
	decodeInto(t, raw, &p)
	return p
}

func getPush(t *testing.T, s *simtest.Server, id string) push {
	t.Helper()
	st, out := ctl(t, s, "GET", "/__sim/webhooks/"+id, nil)
	if st != http.StatusOK {
		t.Fatalf("get push %s: HTTP %d %s", id, st, out)
	}
	return checkPush(t, out)
}

// advance moves the clock and waits (up to 10 s) for the attempts of
// the pushes that became due.
func advance(t *testing.T, s *simtest.Server, by string) {
	t.Helper()
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/clock/advance?wait=10s", map[string]any{"by": by})
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// clause: WH-1
// The push goes to the channel's registered URL with exactly the body of
// section 6.1; referenceId is generated unless given.
func TestWebhook_WH1_bodyToRegisteredURL(t *testing.T) {
	s := simtest.New(t)
	rc := newReceiver(t, answerOK)
	bystander := newReceiver(t, answerOK)
	registerChannel(t, s, "CIW", 0, rc.URL+"/coupon-status")
	registerChannel(t, s, "CIX", 1, bystander.URL)

	p := schedule(t, s, map[string]any{"channel": "CIW", "offerId": "OFFER-9", "reason": "OUT_OF_STOCK", "reasonMessage": "Brand ran out"})
	if len(p) != 1 || p[0].State != "delivered" || len(p[0].Attempts) != 1 || !p[0].Attempts[0].OK || p[0].Attempts[0].URL != rc.URL+"/coupon-status" {
		t.Fatalf("push = %+v", p)
	}
	bodies := rc.got()
	if len(bodies) != 1 || len(bystander.got()) != 0 {
		t.Fatalf("receiver got %d pushes, bystander %d", len(bodies), len(bystander.got()))
	}
	if err := controlSchemas().ValidateJSON("control.webhook.event", bodies[0]); err != nil {
		t.Errorf("body outside section 6.1: %v: %s", err, bodies[0])
	}
	var ev map[string]any
	decodeInto(t, bodies[0], &ev)
	if !uuidRE.MatchString(ev["referenceId"].(string)) {
		t.Errorf("generated referenceId %q is not a UUID", ev["referenceId"])
	}
	// expiredDate defaults to the due time, ISO 8601 with the channel's offset.
	if ev["expiredDate"] != "2026-01-15T10:00:00+05:30" {
		t.Errorf("expiredDate = %v", ev["expiredDate"])
	}
	golden.Check(t, "webhook/coupon-invalidated.json", golden.Mask(t, bodies[0], "referenceId"))

	// A redirect is not followed: the push goes to the registered URL only.
	redirect := newReceiver(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, bystander.URL, http.StatusTemporaryRedirect)
	})
	registerChannel(t, s, "CIR", 0, redirect.URL)
	p = schedule(t, s, map[string]any{"channel": "CIR", "offerId": "OFFER-9", "reason": "OUT_OF_STOCK", "retry": map[string]any{"kind": "none"}})
	if len(bystander.got()) != 0 || p[0].State != "failed" || p[0].Attempts[0].Status != http.StatusTemporaryRedirect {
		t.Errorf("redirecting receiver: push %+v, bystander got %d", p[0], len(bystander.got()))
	}

	// Given values pass through unchanged.
	schedule(t, s, map[string]any{"channel": "CIW", "offerId": "OFFER-9", "reason": "FRAUD_DETECTED",
		"referenceId": "REF-1", "expiredDate": "2026-02-01T00:00:00Z"})
	decodeInto(t, rc.got()[1], &ev)
	if ev["referenceId"] != "REF-1" || ev["expiredDate"] != "2026-02-01T00:00:00Z" || ev["reason"] != "FRAUD_DETECTED" {
		t.Errorf("second push body = %v", ev)
	}
}

// clause: WH-2
// Every attempt is recorded; an answer other than a JSON object with
// status "OK" within the deadline is a finding and is retried by the
// push's policy (none, fixed, exponential; default exponential 30s x4).
func TestWebhook_WH2_attemptsFindingsRetries(t *testing.T) {
	cases := []struct {
		name   string
		answer func(int, http.ResponseWriter, *http.Request)
		retry  map[string]any
		// steps: clock advances after scheduling, and the attempts count
		// and state expected after each (the first entry is before any).
		steps    []string
		attempts []int
		states   []string
		finding  string
		status   int
	}{
		{"correct", answerOK, nil, nil, []int{1}, []string{"delivered"}, "", 200},
		{"slow, retry none", answerSlow, map[string]any{"kind": "none"}, nil, []int{1}, []string{"failed"}, "deadline", 0},
		{"failing, fixed 10s x3", answerFail, map[string]any{"kind": "fixed", "interval": "10s", "maxAttempts": 3},
			[]string{"9s", "1s", "10s"}, []int{1, 1, 2, 3}, []string{"pending", "pending", "pending", "failed"}, "HTTP 500", 500},
		{"non-OK, exponential 30s x3", answerNotOK, map[string]any{"kind": "exponential", "interval": "30s", "maxAttempts": 3},
			[]string{"30s", "59s", "1s"}, []int{1, 2, 2, 3}, []string{"pending", "pending", "pending", "failed"}, `not the string "OK"`, 200},
		{"not JSON, default policy", answerText, nil,
			[]string{"30s", "60s", "120s", "1h"}, []int{1, 2, 3, 4, 4}, []string{"pending", "pending", "pending", "failed", "failed"}, "not a JSON object", 200},
		{"recovers on retry", answerLater, map[string]any{"kind": "fixed", "interval": "1m"},
			[]string{"1m"}, []int{1, 2}, []string{"pending", "delivered"}, "HTTP 500", 500},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := simtest.New(t)
			rc := newReceiver(t, tc.answer)
			registerChannel(t, s, "CIW", 0, rc.URL)
			req := map[string]any{"channel": "CIW", "offerId": "O1", "reason": "TECHNICAL_GLITCH", "deadline": "10s"}
			if tc.status == 0 { // the slow receiver: a short deadline
				req["deadline"] = "100ms"
			}
			if tc.retry != nil {
				req["retry"] = tc.retry
			}
			id := schedule(t, s, req)[0].ID
			for i := range tc.attempts {
				if i > 0 {
					advance(t, s, tc.steps[i-1])
				}
				p := getPush(t, s, id)
				if len(p.Attempts) != tc.attempts[i] || p.State != tc.states[i] {
					t.Fatalf("step %d: %d attempts, state %s; want %d, %s (%+v)", i, len(p.Attempts), p.State, tc.attempts[i], tc.states[i], p)
				}
			}
			p := getPush(t, s, id)
			if len(rc.got()) != len(p.Attempts) {
				t.Errorf("receiver saw %d requests, %d attempts recorded", len(rc.got()), len(p.Attempts))
			}
			a := p.Attempts[0]
			if a.N != 1 || a.Status != tc.status || a.LatencyMs < 0 || (tc.status != 0 && a.Body == "") {
				t.Errorf("first attempt = %+v, want status %d with its body and latency", a, tc.status)
			}
			if tc.finding == "" {
				if len(p.Findings) != 0 {
					t.Errorf("findings for a correct receiver: %v", p.Findings)
				}
				return
			}
			if len(p.Findings) == 0 || !regexp.MustCompile(regexp.QuoteMeta(tc.finding)).MatchString(p.Findings[0]) {
				t.Errorf("findings = %v, want one mentioning %q", p.Findings, tc.finding)
			}
		})
	}
	t.Run("default policy is documented", func(t *testing.T) {
		s := simtest.New(t)
		rc := newReceiver(t, answerOK)
		registerChannel(t, s, "CIW", 0, rc.URL)
		p := schedule(t, s, map[string]any{"channel": "CIW", "offerId": "O1", "reason": "TECHNICAL_GLITCH"})[0]
		if p.Retry.Kind != "exponential" || p.Retry.MaxAttempts != 4 {
			t.Errorf("default retry = %+v, want exponential with 4 attempts", p.Retry)
		}
	})
}

type fakeInvalidator struct {
	mu    sync.Mutex
	calls []string
}

func (f *fakeInvalidator) InvalidateOffer(channel, offerID string, at time.Time, reason string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, channel+"/"+offerID+"@"+at.UTC().Format(time.RFC3339)+" "+reason)
	return nil
}

func (f *fakeInvalidator) got() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// clause: WH-3, WH-4
// A push can be duplicated (same referenceId) or carry an unknown
// eventType; COUPON_INVALIDATED invalidates the offer's delivered coupons
// (at offer granularity, from expiredDate) once per push, retries or not;
// an unknown eventType invalidates nothing.
func TestWebhook_WH3_WH4_duplicatesUnknownTypesInvalidation(t *testing.T) {
	inv := &fakeInvalidator{}
	s := simtest.New(t, simtest.WithWebhooks(sim.WebhookOptions{Invalidator: inv}))
	rc := newReceiver(t, answerLater)
	registerChannel(t, s, "CIW", 0, rc.URL)

	ps := schedule(t, s, map[string]any{"channel": "CIW", "offerId": "O1", "reason": "BRAND_CALLED_OUT",
		"repeat": 2, "expiredDate": "2026-01-15T12:00:00+05:30", "retry": map[string]any{"kind": "fixed", "interval": "1m"}})
	if len(ps) != 2 || ps[0].ID == ps[1].ID {
		t.Fatalf("repeat 2 gave %+v", ps)
	}
	advance(t, s, "1m") // the first delivery failed once and is retried
	var refs []string
	for _, b := range rc.got() {
		var ev map[string]any
		decodeInto(t, b, &ev)
		refs = append(refs, ev["referenceId"].(string))
	}
	if len(refs) != 3 || refs[0] != refs[1] || refs[1] != refs[2] {
		t.Errorf("referenceIds sent = %v, want 3 deliveries (one retry) of one referenceId", refs)
	}
	want := "CIW/O1@2026-01-15T06:30:00Z BRAND_CALLED_OUT"
	if got := inv.got(); len(got) != 2 || got[0] != want || got[1] != want {
		t.Errorf("invalidations = %v, want %s once per push", got, want)
	}

	schedule(t, s, map[string]any{"channel": "CIW", "offerId": "O2", "reason": "OFFER_TERMINATED", "eventType": "COUPON_REISSUED"})
	bodies := rc.got()
	var ev map[string]any
	decodeInto(t, bodies[len(bodies)-1], &ev)
	if ev["eventType"] != "COUPON_REISSUED" || ev["offerId"] != "O2" {
		t.Errorf("unknown-type push body = %v", ev)
	}
	if got := inv.got(); len(got) != 2 {
		t.Errorf("an unknown eventType invalidated: %v", got)
	}
}

// clause: WH-5, TOK-4
// Pushes wait for the simulated clock and survive a restart; one clock
// advance expires tokens and fires the due push, exactly once.
func TestWebhook_WH5_scheduledSurvivesRestartFiresOnClock(t *testing.T) {
	dir, clk := t.TempDir(), simtest.NewClock()
	rc := newReceiver(t, answerOK)
	s := simtest.New(t, simtest.WithDataDir(dir), simtest.WithClock(clk))
	registerChannel(t, s, "CIW", 0, rc.URL)
	c := registerChannel(t, s, "CIW", 0, rc.URL) // re-registering is idempotent
	if _, err := c.UserToken(bg, "VU-1"); err != nil {
		t.Fatal(err)
	}
	p := schedule(t, s, map[string]any{"channel": "CIW", "offerId": "O1", "reason": "OUT_OF_STOCK",
		"at": simtest.Start.Add(time.Hour).Format(time.RFC3339)})[0]
	if p.State != "pending" || len(p.Attempts) != 0 || len(rc.got()) != 0 {
		t.Fatalf("future push fired early: %+v", p)
	}
	advance(t, s, "59m")
	if len(rc.got()) != 0 {
		t.Fatal("push fired before its time")
	}
	s.Close()

	s = simtest.New(t, simtest.WithDataDir(dir), simtest.WithClock(clk))
	if got := getPush(t, s, p.ID); got.State != "pending" {
		t.Fatalf("after restart: %+v", got)
	}
	advance(t, s, "1m")
	if got := getPush(t, s, p.ID); got.State != "delivered" || len(rc.got()) != 1 {
		t.Fatalf("after the clock reached it: %+v, %d deliveries", got, len(rc.got()))
	}
	m := ctlOK(t, s, http.StatusOK, "GET", "/__sim/state/users/CIW/VU-1", nil)
	if tok := m["tokens"].([]any)[0].(map[string]any); tok["expired"] != true {
		t.Errorf("token after 1h (userTTL 30m): %v", tok)
	}
	advance(t, s, "24h")
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/webhooks/run?wait=10s", nil)
	if n := len(rc.got()); n != 1 {
		t.Errorf("push delivered %d times, want once", n)
	}
	var list struct{ Pushes []push }
	_, out := ctl(t, s, "GET", "/__sim/webhooks?channel=CIW", nil)
	decodeInto(t, out, &list)
	if len(list.Pushes) != 1 {
		t.Errorf("listing = %s", out)
	}
}

// clause: WH-2
// switches.webhook sets a channel's default retry policy and deadline:
// both positions of the retry switch, with the channel's scenario chosen
// per channel.
func TestWebhook_WH2_retrySwitch(t *testing.T) {
	for _, tc := range []struct {
		switches string
		state    string
		retry    string
	}{
		{"", "pending", "exponential"},
		{"switches:\n  webhook: {retry: none, deadline: 50ms}\n", "failed", "none"},
		{"switches:\n  webhook: {retry: fixed, interval: 5m, maxAttempts: 2}\n", "pending", "fixed"},
	} {
		t.Run(tc.retry, func(t *testing.T) {
			s := simtest.New(t)
			rc := newReceiver(t, answerFail)
			registerChannel(t, s, "CIW", 0, rc.URL)
			yaml := "version: 1\nname: hooks\nchannels: [{name: DEMOBANK, certificateFile: \"builtin:publisher-dev.crt\"}]\n" + tc.switches
			ctlOK(t, s, http.StatusCreated, "POST", "/__sim/scenarios?activate=true&channel=CIW", yaml)
			p := schedule(t, s, map[string]any{"channel": "CIW", "offerId": "O1", "reason": "TECHNICAL_GLITCH"})[0]
			if p.State != tc.state || p.Retry.Kind != tc.retry || len(p.Attempts) != 1 {
				t.Errorf("push = %+v, want state %s under retry %s", p, tc.state, tc.retry)
			}
			if tc.retry == "fixed" {
				advance(t, s, "5m")
				if p = getPush(t, s, p.ID); p.State != "failed" || len(p.Attempts) != 2 {
					t.Errorf("after 5m: %+v, want failed after 2 attempts", p)
				}
			}
		})
	}
}

// clause: SIM-2, WH-2
// A channel reset while one of its pushes is being delivered is final:
// the delivery's write-back does not bring the push back.
func TestWebhook_SIM2_resetDuringDeliveryIsFinal(t *testing.T) {
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
		// Waits for the attempt, so the write-back is done when it answers.
		ctl(t, s, "POST", "/__sim/clock/advance?wait=10s", map[string]any{"by": "1h"})
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

// clause: WH-2
// Issue 23: scheduling, clock moves and POST /__sim/webhooks/run answer
// at once beside a receiver that never answers, naming what became due
// and its state then; ?wait waits for the attempts only as long as
// asked, and GET /__sim/webhooks/{id}?wait for the push to settle. Every
// answer is checked against its schema.
func TestWebhook_controlCallsDoNotWait(t *testing.T) {
	s := simtest.New(t)
	release := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer silent.Close()
	defer close(release)
	registerChannel(t, s, "CIS", 0, silent.URL)
	registerChannel(t, s, "CIO", 1, newReceiver(t, answerOK).URL)

	type became struct{ ID, Channel, State string }
	call := func(method, path, schema string, body any, want int) (map[string]any, []became, time.Duration) {
		t.Helper()
		start := time.Now()
		st, out := ctl(t, s, method, path, body)
		took := time.Since(start)
		if st != want {
			t.Fatalf("%s %s: HTTP %d %s, want %d", method, path, st, out, want)
		}
		if err := controlSchemas().ValidateJSON(schema, out); err != nil {
			t.Errorf("%s %s: answer outside %s.json: %v: %s", method, path, schema, err, out)
		}
		var m map[string]any
		var b struct{ BecameDue []became }
		decodeInto(t, out, &m)
		decodeInto(t, out, &b)
		return m, b.BecameDue, took
	}
	silentPush := map[string]any{"channel": "CIS", "offerId": "O1", "reason": "OUT_OF_STOCK", "deadline": "30s", "retry": map[string]any{"kind": "none"}}

	// By default: at once, the push due or being attempted, no attempt in.
	m, bd, took := call("POST", "/__sim/webhooks", "control.webhook.scheduled", silentPush, http.StatusCreated)
	id := m["pushes"].([]any)[0].(map[string]any)["id"].(string)
	if took > 5*time.Second || m["due"] != 1.0 || len(bd) != 1 || bd[0].ID != id || (bd[0].State != "due" && bd[0].State != "delivering") {
		t.Fatalf("schedule beside a silent receiver took %s: %v", took, m)
	}
	// A bounded wait ends when asked, the attempt still under way.
	_, bd, took = call("POST", "/__sim/webhooks?wait=300ms", "control.webhook.scheduled", silentPush, http.StatusCreated)
	if took < 300*time.Millisecond || took > 5*time.Second || len(bd) != 1 || bd[0].State != "delivering" {
		t.Fatalf("?wait=300ms beside a silent receiver took %s: %+v", took, bd)
	}
	p, _, took := call("GET", "/__sim/webhooks/"+id+"?wait=200ms", "control.webhook.push", nil, http.StatusOK)
	if took < 200*time.Millisecond || took > 5*time.Second || p["state"] != "pending" {
		t.Fatalf("GET ?wait=200ms of a push being attempted: %s after %s", p["state"], took)
	}

	// A quick receiver: the wait ends with its attempt, shown in the answer.
	at := simtest.Start.Add(time.Hour).Format(time.RFC3339)
	m, bd, _ = call("POST", "/__sim/webhooks", "control.webhook.scheduled", map[string]any{"channel": "CIO", "offerId": "O1", "reason": "OUT_OF_STOCK", "at": at}, http.StatusCreated)
	okID := m["pushes"].([]any)[0].(map[string]any)["id"].(string)
	if m["due"] != 0.0 || len(bd) != 0 {
		t.Fatalf("a push due in an hour became due: %v", m)
	}
	clk, bd, _ := call("POST", "/__sim/clock/advance?wait=10s", "control.clock.answer", map[string]any{"by": "1h"}, http.StatusOK)
	if clk["firedWebhooks"] != 1.0 || len(bd) != 1 || bd[0] != (became{okID, "CIO", "delivered"}) {
		t.Fatalf("clock move ?wait=10s: %v", clk)
	}
	if p := getPush(t, s, okID); p.State != "delivered" || len(p.Attempts) != 1 {
		t.Fatalf("after the clock move: %+v", p)
	}
	if m, bd, _ := call("POST", "/__sim/webhooks/run", "control.webhook.run", nil, http.StatusOK); m["fired"] != 0.0 || len(bd) != 0 {
		t.Fatalf("run with nothing due: %v", m)
	}
	call("GET", "/__sim/clock", "control.clock.answer", nil, http.StatusOK)

	// A bad wait, or an unknown parameter, is refused on every call that takes one.
	// Each body is one the call takes, so only the query can be refused.
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"POST", "/__sim/webhooks", map[string]any{"channel": "CIO", "offerId": "O1", "reason": "OUT_OF_STOCK", "at": at}},
		{"GET", "/__sim/webhooks/" + id, nil},
		{"POST", "/__sim/webhooks/run", nil},
		{"POST", "/__sim/clock", map[string]any{"mode": "frozen"}},
		{"POST", "/__sim/clock/advance", map[string]any{"by": "1m"}},
		{"DELETE", "/__sim/clock?channel=CIO&", nil},
	} {
		for _, q := range []string{"wait=soon", "wait=-1s", "wait=31s", "wiat=2s"} {
			sep := "?"
			if strings.Contains(c.path, "?") {
				sep = ""
			}
			st, out := ctl(t, s, c.method, c.path+sep+q, c.body)
			if st != http.StatusBadRequest || !strings.Contains(string(out), strings.Split(strings.TrimPrefix(q, "wait="), "=")[0]) {
				t.Errorf("%s %s%s%s: HTTP %d %s, want 400 naming it", c.method, c.path, sep, q, st, out)
			}
		}
	}
}
