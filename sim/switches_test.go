package sim_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// switchCall is POST /__sim/switches, its answer checked against its schema.
func switchCall(t *testing.T, s *simtest.Server, body map[string]any) (int, []byte) {
	t.Helper()
	st, out := ctl(t, s, "POST", "/__sim/switches", body)
	if st == http.StatusOK {
		if err := controlSchemas().ValidateJSON("control.switch.answer", out); err != nil {
			t.Errorf("POST /__sim/switches answered outside control.switch.answer.json: %v: %s", err, out)
		}
	}
	return st, out
}

// Every behaviour switch is set without YAML through the control API, for
// one channel or every channel: every value the table allows is taken
// and put in force, a value it does not take is refused naming those it
// takes, and GET shows the default, the scenario's value and the
// overrides (issue 52, item 1).
func TestSwitches_everyAllowedValueAndTheRefusals(t *testing.T) {
	s := simtest.New(t)
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/channels", map[string]any{"name": "CI-SW", "like": "DEMOBANK"})
	for _, d := range scenario.SwitchTable {
		values := d.Values
		if values == nil {
			values = []string{d.Default}
		}
		for _, v := range values {
			if v == "0" && d.Kind == "duration" {
				v = "2s"
			}
			st, out := switchCall(t, s, map[string]any{"name": d.Short(), "value": v, "channel": "CI-SW"})
			var got struct{ Value, Override, Scenario, Default string }
			_ = json.Unmarshal(out, &got)
			if st != http.StatusOK || got.Value != v || got.Override != v || got.Default != d.Default {
				t.Errorf("set %s to %q: HTTP %d %s", d.Name, v, st, out)
			}
		}
	}
	list := ctlOKRaw(t, s, "/__sim/switches?channel=CI-SW")
	if err := controlSchemas().ValidateJSON("control.switches", list); err != nil {
		t.Errorf("GET /__sim/switches answered outside control.switches.json: %v", err)
	}
	reset := ctlOK(t, s, http.StatusOK, "DELETE", "/__sim/switches?channel=CI-SW", nil)
	if names, _ := reset["reset"].([]any); len(names) != len(scenario.SwitchTable) {
		t.Errorf("reset every switch of CI-SW: %d reset, want %d: %v", len(names), len(scenario.SwitchTable), reset["reset"])
	}

	for _, c := range []struct {
		body map[string]any
		want int
		msg  string
	}{
		{map[string]any{"name": "coupons.duplicate", "value": "replay"}, http.StatusBadRequest, `it takes original, reject`},
		{map[string]any{"name": "cards.secondReveal", "value": "boom", "channel": "CI-SW"}, http.StatusBadRequest, `it takes failure, status-false`},
		{map[string]any{"name": "cards.listMaxLimit", "value": 5000}, http.StatusBadRequest, `an integer from 1 to 1000`},
		{map[string]any{"name": "webhook.interval", "value": "soon"}, http.StatusBadRequest, `a positive duration`},
		{map[string]any{"name": "cards.listDefaultLimit", "value": 100, "channel": "CI-SW"}, http.StatusConflict, `larger than cards.listMaxLimit`},
		{map[string]any{"name": "coupons.duplicat", "value": "reject"}, http.StatusNotFound, `the switches are failureHttpStatus`},
		{map[string]any{"name": "coupons.duplicate", "value": "reject", "channel": "NOPE"}, http.StatusNotFound, `no channel named \"NOPE\"`},
		{map[string]any{"name": "coupons.duplicate"}, http.StatusBadRequest, `/value`},
		{map[string]any{"name": "switches.coupons.orderId", "value": true, "channel": "CI-SW"}, http.StatusOK, `"value":"true"`},
		{map[string]any{"name": "cards.listMaxLimit", "value": 80}, http.StatusOK, `"everyChannel":"80"`},
	} {
		if st, out := switchCall(t, s, c.body); st != c.want || !strings.Contains(string(out), c.msg) {
			t.Errorf("POST /__sim/switches %v: HTTP %d %s, want %d with %q", c.body, st, out, c.want, c.msg)
		}
	}
	// A channel removed takes its overrides with it: registered again, it inherits none.
	ctlOK(t, s, http.StatusNoContent, "DELETE", "/__sim/channels/CI-SW", nil)
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/channels", map[string]any{"name": "CI-SW", "like": "DEMOBANK"})
	if out := string(ctlOKRaw(t, s, "/__sim/switches?channel=CI-SW")); strings.Contains(out, `"override":"true"`) {
		t.Errorf("CI-SW registered again inherits the override of its former self: %s", out)
	}
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/switches", map[string]any{"name": "coupons.orderId", "value": "true", "channel": "CI-SW"})
	var rows struct {
		Switches []scenario.SwitchState
	}
	if err := json.Unmarshal(ctlOKRaw(t, s, "/__sim/switches?channel=CI-SW"), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows.Switches {
		switch r.Name {
		case "switches.cards.listMaxLimit":
			if r.Value != "80" || r.EveryChannel != "80" || r.Scenario != "50" || r.Default != "50" {
				t.Errorf("listMaxLimit on CI-SW: %+v, want 80 from the override of every channel over the scenario's 50", r)
			}
		case "switches.coupons.orderId":
			if r.Value != "true" || r.Override != "true" || r.Scenario != "false" {
				t.Errorf("orderId on CI-SW: %+v", r)
			}
		}
	}
}

// A switch set for one channel changes that channel's answers at once,
// and no other channel's; reset puts the scenario's reading back (CPN-5).
func TestSwitches_setChangesTheChannelsAnswers(t *testing.T) {
	s := simtest.New(t)
	ctx := context.Background()
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/channels", map[string]any{"name": "CI-OTHER", "like": "DEMOBANK"})
	claim := func(tx string) error {
		_, err := s.Client.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-SW", ExtTransactionID: tx, CoinsUsed: "100"})
		return err
	}
	if err := claim("TX-SW1"); err != nil {
		t.Fatal(err)
	}
	if err := claim("TX-SW1"); err != nil {
		t.Fatalf("a duplicate under the default (original): %v", err)
	}
	if st, out := switchCall(t, s, map[string]any{"name": "coupons.duplicate", "value": "reject", "channel": "DEMOBANK"}); st != http.StatusOK {
		t.Fatalf("set: HTTP %d %s", st, out)
	}
	var ce *publisher.CouponError
	if err := claim("TX-SW1"); !errors.As(err, &ce) || ce.ErrorCode != "DUPLICATE_TRANSACTION" {
		t.Fatalf("a duplicate with coupons.duplicate reject: %v, want DUPLICATE_TRANSACTION", err)
	}
	var other struct{ Switches []scenario.SwitchState }
	_ = json.Unmarshal(ctlOKRaw(t, s, "/__sim/switches?channel=CI-OTHER"), &other)
	for _, r := range other.Switches {
		if r.Name == "switches.coupons.duplicate" && r.Value != "original" {
			t.Errorf("CI-OTHER's coupons.duplicate is %q: an override of DEMOBANK leaked", r.Value)
		}
	}
	ctlOK(t, s, http.StatusOK, "DELETE", "/__sim/switches/coupons%2Eduplicate?channel=DEMOBANK", nil)
	if err := claim("TX-SW1"); err != nil {
		t.Fatalf("a duplicate after reset: %v", err)
	}
}
