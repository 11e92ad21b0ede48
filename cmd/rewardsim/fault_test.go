package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/controlapi"
)

// fault add posts the control API's own rule type (controlapi.FaultRule,
// the simulator's fault.Rule), each field filled from a flag: a field
// added to the rule without a flag stays zero here and is named (issue
// 54, step 3: a rule's shape written once).
func TestFaultAdd_flagsCoverTheRule(t *testing.T) {
	var posted []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posted, _ = io.ReadAll(r.Body)
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{}`)
	}))
	defer srv.Close()

	cmd := newFaultAddCmd()
	cmd.SetArgs([]string{"--endpoint", "fetchCouponCode", "--kind", "coupon-error", "--code", "COUPON_EXHAUSTED",
		"--status", "409", "--delay", "2s", "--message", "out of stock", "--channel", "CI-42", "--virtual-id", "U1",
		"--times", "3", "--nth", "2", "--probability", "0.5", "--seed", "7", "--id", "every-flag",
		"--control", srv.URL, "--json"})
	cmd.SetOut(io.Discard)
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	var got controlapi.FaultRule
	dec := json.NewDecoder(bytes.NewReader(posted))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("the posted rule %s: %v", posted, err)
	}
	want := controlapi.FaultRule{ID: "every-flag", Endpoint: "fetchCouponCode", Channel: "CI-42", VirtualID: "U1",
		Nth: 2, Times: 3, Probability: 0.5, Seed: 7, Action: controlapi.FaultAction{Kind: "coupon-error",
			Status: 409, Delay: controlapi.Duration(2 * time.Second), ErrorCode: "COUPON_EXHAUSTED", Message: "out of stock"}}
	if got != want {
		t.Errorf("posted %+v, want %+v", got, want)
	}
	for _, f := range zeroFields(reflect.ValueOf(got), "rule") {
		t.Errorf("%s: no flag of fault add fills it", f)
	}
}

// zeroFields names the fields of v (a struct, nested ones walked) left
// at their zero value.
func zeroFields(v reflect.Value, path string) []string {
	var out []string
	for i := range v.NumField() {
		f, at := v.Field(i), path+"."+v.Type().Field(i).Name
		switch {
		case f.Kind() == reflect.Struct:
			out = append(out, zeroFields(f, at)...)
		case f.IsZero():
			out = append(out, at)
		}
	}
	return out
}

// The one-line form of a listed rule says each of its fields that is set.
func TestFaultLine(t *testing.T) {
	rule := func(r controlapi.FaultRule) controlapi.FaultStatus { return controlapi.FaultStatus{Rule: r} }
	for _, c := range []struct {
		st   controlapi.FaultStatus
		want string
	}{
		{rule(controlapi.FaultRule{ID: "a", Endpoint: "GetReward", Action: controlapi.FaultAction{Kind: "internal-error"}}),
			"a: internal-error on GetReward, every channel, every call; fired 0 of 0 seen"},
		{controlapi.FaultStatus{Rule: controlapi.FaultRule{ID: "b", Endpoint: "fetchCouponCode", Channel: "CI-42", VirtualID: "U1", Times: 1,
			Action: controlapi.FaultAction{Kind: "coupon-error", ErrorCode: "COUPON_EXHAUSTED", Status: 409, Message: "gone"}}, Seen: 2, Fired: 1, Spent: true},
			`b: coupon-error COUPON_EXHAUSTED HTTP 409 "gone" on fetchCouponCode, channel CI-42, user U1, 1 time(s); fired 1 of 2 seen (spent)`},
		{rule(controlapi.FaultRule{ID: "c", Endpoint: "*", Nth: 3, Probability: 0.25, Seed: 9, Action: controlapi.FaultAction{Kind: "delay", Delay: controlapi.Duration(1500 * time.Millisecond)}}),
			"c: delay 1.5s on *, every channel, every call, call 3 only, with probability 0.25 (seed 9); fired 0 of 0 seen"},
	} {
		if got := faultLine(c.st); got != c.want {
			t.Errorf("faultLine(%+v)\n got %s\nwant %s", c.st, got, c.want)
		}
	}
}
