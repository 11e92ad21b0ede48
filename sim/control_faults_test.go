package sim_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: ENV-5, SIM-3
// 'Internal Error!' is injectable on GenerateSessionInfoV2 through the
// control API: a one-shot rule fires once, is listed as spent, and can be
// removed.
func TestFaults_ENV5_internalErrorInjectedViaControlAPI(t *testing.T) {
	s := simtest.New(t)
	rule := ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{
		"id": "ie", "endpoint": "GenerateSessionInfoV2", "times": 1, "action": map[string]any{"kind": "internal-error"},
	})
	if rule["id"] != "ie" || rule["fired"] != 0.0 {
		t.Fatalf("added rule = %v", rule)
	}
	_, err := s.Client.Session(bg, "VU-1")
	var fe *publisher.FailureError
	if !errorsAs(err, &fe) || fe.ERRORSTRING != "Internal Error!" || fe.STATUS != "FAILURE" {
		t.Fatalf("first call: %v, want the bare Internal Error! failure", err)
	}
	if _, err := s.Client.Session(bg, "VU-1"); err != nil {
		t.Fatalf("second call after the one-shot rule: %v", err)
	}
	list := ctlOK(t, s, http.StatusOK, "GET", "/__sim/faults", nil)
	r := list["rules"].([]any)[0].(map[string]any)
	if r["fired"] != 1.0 || r["seen"] != 2.0 || r["spent"] != true {
		t.Errorf("listed rule = %v, want fired 1, seen 2, spent", r)
	}
	ctlOK(t, s, http.StatusNoContent, "DELETE", "/__sim/faults/ie", nil)
	if list := ctlOK(t, s, http.StatusOK, "GET", "/__sim/faults", nil); len(list["rules"].([]any)) != 0 {
		t.Errorf("rules after delete = %v", list)
	}
}

// sessionOutcomes makes n session calls for virtualID and reports which failed.
func sessionOutcomes(t *testing.T, c *publisher.Client, virtualID string, n int) string {
	t.Helper()
	var b strings.Builder
	for range n {
		_, err := c.Session(bg, virtualID)
		switch {
		case err == nil:
			b.WriteByte('.')
		case publisher.IsFailure(err, "Internal Error!"):
			b.WriteByte('X')
		default:
			t.Fatalf("unexpected answer: %v", err)
		}
	}
	return b.String()
}

// clause: SIM-3
// Rules match endpoint, virtualId, the nth call, or a seeded probability;
// they are one-shot, counted or standing.
func TestFaults_SIM3_matching(t *testing.T) {
	ie := map[string]any{"kind": "internal-error"}
	cases := []struct {
		name      string
		rule      map[string]any
		virtualID string
		want      string
	}{
		{"standing", map[string]any{"endpoint": "GenerateSessionInfoV2", "action": ie}, "VU-1", "XXXX"},
		{"one-shot", map[string]any{"endpoint": "GenerateSessionInfoV2", "times": 1, "action": ie}, "VU-1", "X..."},
		{"counted", map[string]any{"endpoint": "GenerateSessionInfoV2", "times": 2, "action": ie}, "VU-1", "XX.."},
		{"nth call", map[string]any{"endpoint": "GenerateSessionInfoV2", "nth": 3, "action": ie}, "VU-1", "..X."},
		{"wildcard endpoint", map[string]any{"endpoint": "*", "times": 1, "action": ie}, "VU-1", "X..."},
		{"other endpoint", map[string]any{"endpoint": "GetAuthToken", "action": ie}, "VU-1", "...."},
		{"this user", map[string]any{"endpoint": "GenerateSessionInfoV2", "virtualId": "VU-1", "action": ie}, "VU-1", "XXXX"},
		{"other user", map[string]any{"endpoint": "GenerateSessionInfoV2", "virtualId": "VU-2", "action": ie}, "VU-1", "...."},
		{"this channel", map[string]any{"endpoint": "GenerateSessionInfoV2", "channel": "DEMOBANK", "action": ie}, "VU-1", "XXXX"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := simtest.New(t)
			ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", tc.rule)
			if got := sessionOutcomes(t, s.Client, tc.virtualID, 4); got != tc.want {
				t.Errorf("outcomes %s, want %s", got, tc.want)
			}
		})
	}
	t.Run("probability with seed is reproducible", func(t *testing.T) {
		rule := map[string]any{"endpoint": "GenerateSessionInfoV2", "probability": 0.5, "seed": 7, "action": ie}
		var runs []string
		for range 2 {
			s := simtest.New(t)
			ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", rule)
			runs = append(runs, sessionOutcomes(t, s.Client, "VU-1", 24))
		}
		if runs[0] != runs[1] {
			t.Errorf("same seed, different outcomes: %s vs %s", runs[0], runs[1])
		}
		if !strings.Contains(runs[0], "X") || !strings.Contains(runs[0], ".") {
			t.Errorf("probability 0.5 over 24 calls gave %s", runs[0])
		}
	})
}

// rawSession posts a signed GenerateSessionInfoV2 outside the validating
// harness client: injected wire faults are outside every schema by design.
func rawSession(t *testing.T, s *simtest.Server) (*http.Response, []byte, error) {
	t.Helper()
	env, err := publisher.Seal(s.PublisherKey, "DEMOBANK", map[string]string{"bName": "DEMOBANK", "virtualId": "VU-1"})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(env)
	res, err := http.Post(s.BankURL+"/api/GenerateSessionInfoV2", "application/json", bytes.NewReader(raw))
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	return res, body, err
}

// clause: SIM-3
// Every action kind the signed endpoints render, on the wire.
func TestFaults_SIM3_actions(t *testing.T) {
	cases := []struct {
		action map[string]any
		check  func(t *testing.T, res *http.Response, body []byte, err error)
	}{
		{map[string]any{"kind": "signature-mismatch"}, func(t *testing.T, res *http.Response, body []byte, err error) {
			if err != nil || string(body) != `{"STATUS":"FAILURE","ERRORSTRING":"Signature Mismatch!"}`+"\n" {
				t.Errorf("body %q, err %v", body, err)
			}
		}},
		{map[string]any{"kind": "internal-error", "status": 500}, func(t *testing.T, res *http.Response, body []byte, err error) {
			if err != nil || res.StatusCode != 500 || !strings.Contains(string(body), "Internal Error!") {
				t.Errorf("HTTP %v body %q, err %v", res, body, err)
			}
		}},
		{map[string]any{"kind": "http-status", "status": 401}, func(t *testing.T, res *http.Response, body []byte, err error) {
			if err != nil || res.StatusCode != 401 || res.Header.Get("X-Rewardsim-Reason") == "" {
				t.Errorf("HTTP %v, err %v", res, err)
			}
		}},
		{map[string]any{"kind": "http-status", "status": 503}, func(t *testing.T, res *http.Response, body []byte, err error) {
			if err != nil || res.StatusCode != 503 {
				t.Errorf("HTTP %v, err %v", res, err)
			}
		}},
		{map[string]any{"kind": "malformed-body"}, func(t *testing.T, res *http.Response, body []byte, err error) {
			if err != nil || res.StatusCode != 200 || json.Valid(body) {
				t.Errorf("HTTP %v body %q (valid JSON: %v), err %v", res, body, json.Valid(body), err)
			}
		}},
		{map[string]any{"kind": "drop-connection"}, func(t *testing.T, res *http.Response, body []byte, err error) {
			if err == nil {
				t.Errorf("dropped connection answered HTTP %d %q", res.StatusCode, body)
			}
		}},
		{map[string]any{"kind": "delay", "delay": "20ms"}, func(t *testing.T, res *http.Response, body []byte, err error) {
			if err != nil || res.StatusCode != 200 || !strings.Contains(string(body), "SIGN") {
				t.Errorf("delayed answer HTTP %v body %q, err %v", res, body, err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.action["kind"].(string), func(t *testing.T) {
			s := simtest.New(t)
			ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{"endpoint": "GenerateSessionInfoV2", "times": 1, "action": tc.action})
			res, body, err := rawSession(t, s)
			tc.check(t, res, body, err)
			// One-shot: the next call is normal again.
			if _, err := s.Client.Session(bg, "VU-1"); err != nil {
				t.Errorf("after the fault: %v", err)
			}
		})
	}
}

// clause: SIM-2, SIM-3
// Two channels registered at run time, used in parallel, never see each
// other's tokens, sessions or faults; a reset of one leaves the other.
func TestChannels_SIM2_SIM3_parallelChannelsAreIsolated(t *testing.T) {
	s := simtest.New(t)
	a := registerChannel(t, s, "CIA", 0, "")
	b := registerChannel(t, s, "CIB", 1, "")
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{
		"endpoint": "GenerateSessionInfoV2", "channel": "CIA", "action": map[string]any{"kind": "internal-error"},
	})

	const n = 8
	tokens := map[string]map[string]bool{"CIA": {}, "CIB": {}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, c := range []*publisher.Client{a, b} {
		for range n {
			wg.Go(func() {
				tok, err := c.UserToken(bg, "VU-1")
				if err != nil {
					t.Errorf("%s token: %v", c.Channel, err)
					return
				}
				mu.Lock()
				tokens[c.Channel][tok.Token] = true
				mu.Unlock()
				_, err = c.Session(bg, "VU-1")
				if failed := publisher.IsFailure(err, "Internal Error!"); failed != (c.Channel == "CIA") {
					t.Errorf("%s session: %v (the fault is CIA's only)", c.Channel, err)
				}
			})
		}
	}
	wg.Wait()

	read := func(ch string) (toks []string, sessions int) {
		m := ctlOK(t, s, http.StatusOK, "GET", "/__sim/state/users/"+ch+"/VU-1", nil)
		for _, x := range m["tokens"].([]any) {
			toks = append(toks, x.(map[string]any)["token"].(string))
		}
		return toks, len(m["sessions"].([]any))
	}
	for ch, want := range map[string]int{"CIA": 0, "CIB": n} {
		toks, sessions := read(ch)
		if len(toks) != n || sessions != want {
			t.Errorf("%s: %d tokens, %d sessions; want %d, %d", ch, len(toks), sessions, n, want)
		}
		for _, tok := range toks {
			if !tokens[ch][tok] {
				t.Errorf("%s reads token %s it was never issued", ch, tok)
			}
		}
	}
	// A channel cannot sign as another (its key is its own).
	impostor := *b
	impostor.ChannelID = "CIA-ID"
	if _, err := impostor.UserToken(bg, "VU-1"); !publisher.IsFailure(err, "Signature Mismatch!") {
		t.Errorf("CIB's key under CIA's CHANNELID: %v, want Signature Mismatch!", err)
	}

	ctlOK(t, s, http.StatusOK, "POST", "/__sim/state/reset", map[string]any{"channel": "CIA"})
	if toks, _ := read("CIA"); len(toks) != 0 {
		t.Errorf("CIA after its reset: %d tokens", len(toks))
	}
	if toks, sessions := read("CIB"); len(toks) != n || sessions != n {
		t.Errorf("CIB after CIA's reset: %d tokens, %d sessions", len(toks), sessions)
	}
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/state/reset", nil)
	if toks, sessions := read("CIB"); len(toks) != 0 || sessions != 0 {
		t.Errorf("CIB after the whole reset: %d tokens, %d sessions", len(toks), sessions)
	}
	// Registration is configuration: the channels survive the reset.
	if _, err := a.UserToken(bg, "VU-1"); err != nil {
		t.Errorf("CIA after the reset: %v", err)
	}
	// Unregistered, the channel is unknown.
	ctlOK(t, s, http.StatusNoContent, "DELETE", "/__sim/channels/CIB", nil)
	if _, err := b.UserToken(bg, "VU-1"); !publisher.IsFailure(err, "Signature Mismatch!") {
		t.Errorf("unregistered CIB: %v, want the unknown-channel failure", err)
	}
}

// clause: SIM-3, TOK-4
// The clock is shown, set and advanced through the control API; tokens
// expire on it.
func TestClock_SIM3_showSetAdvance(t *testing.T) {
	s := simtest.New(t)
	c := ctlOK(t, s, http.StatusOK, "GET", "/__sim/clock", nil)
	if now, _ := time.Parse(time.RFC3339, c["now"].(string)); !now.Equal(simtest.Start) || c["mode"] != "frozen" {
		t.Fatalf("clock = %v, want frozen at %v", c, simtest.Start)
	}
	if _, err := s.Client.UserToken(bg, "VU-1"); err != nil {
		t.Fatal(err)
	}
	expired := func() bool {
		m := ctlOK(t, s, http.StatusOK, "GET", "/__sim/state/users/DEMOBANK/VU-1", nil)
		return m["tokens"].([]any)[0].(map[string]any)["expired"].(bool)
	}
	if expired() {
		t.Fatal("fresh token reads as expired")
	}
	c = ctlOK(t, s, http.StatusOK, "POST", "/__sim/clock/advance", map[string]any{"by": "30m"})
	if !s.Clock.Now().Equal(simtest.Start.Add(30*time.Minute)) || !expired() {
		t.Errorf("after 30m (the userTTL): clock %v, expired %v", s.Clock.Now(), expired())
	}
	at := time.Date(2027, 3, 1, 9, 0, 0, 0, time.UTC)
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/clock", map[string]any{"time": at.Format(time.RFC3339), "mode": "frozen"})
	if !s.Clock.Now().Equal(at) {
		t.Errorf("set: clock %v, want %v", s.Clock.Now(), at)
	}
}

// clause: SIM-2, SIM-3
// Fault rules and their counters survive a restart: a spent one-shot rule
// stays spent, a standing one keeps firing.
func TestFaults_SIM2_rulesAndCountersSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	s := simtest.New(t, simtest.WithDataDir(dir))
	ie := map[string]any{"kind": "internal-error"}
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{"id": "once", "endpoint": "GenerateSessionInfoV2", "virtualId": "VU-1", "times": 1, "action": ie})
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{"id": "always", "endpoint": "GenerateSessionInfoV2", "virtualId": "VU-2", "action": ie})
	if got := sessionOutcomes(t, s.Client, "VU-1", 1); got != "X" {
		t.Fatalf("before restart: %s", got)
	}
	s.Close()
	s = simtest.New(t, simtest.WithDataDir(dir))
	if got := sessionOutcomes(t, s.Client, "VU-1", 2) + sessionOutcomes(t, s.Client, "VU-2", 2); got != "..XX" {
		t.Errorf("after restart: %s, want the one-shot spent and the standing rule firing", got)
	}
	rules := ctlOK(t, s, http.StatusOK, "GET", "/__sim/faults", nil)["rules"].([]any)
	if len(rules) != 2 || rules[0].(map[string]any)["spent"] != true {
		t.Errorf("rules after restart: %v", rules)
	}
}

// clause: SIM-2, SIM-3
// Fault counters saved by concurrent fires land in order (the restart sees
// every fire), and a rule deleted while it fires stays deleted.
func TestFaults_SIM2_countersUnderConcurrency(t *testing.T) {
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
