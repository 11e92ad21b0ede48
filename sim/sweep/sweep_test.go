package sweep

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

func TestPlan(t *testing.T) {
	for _, c := range []struct {
		name               string
		called, only, kind []string
		when               string
		rows               int
		first              string
	}{
		// 6 generic + not-eligible + 8 coupon codes + 2 commit kinds.
		{"fetchCouponCode, every kind, both", []string{"fetchCouponCode"}, nil, nil, Both, 34, "fetchCouponCode/internal-error/first"},
		{"getUserCoupons shows no commit kind", []string{"getUserCoupons"}, nil, nil, First, 15, "getUserCoupons/internal-error/first"},
		{"one coupon code", []string{"fetchCouponCode"}, nil, []string{"coupon-error COUPON_EXHAUSTED"}, Every, 1, "fetchCouponCode/coupon-error:COUPON_EXHAUSTED/every"},
		{"every coupon code", []string{"fetchCouponCode", "GetAuthToken"}, nil, []string{"coupon-error"}, First, 8, "fetchCouponCode/coupon-error:INVALID_REQUEST/first"},
		{"only wins over called", []string{"fetchCouponCode"}, []string{"GetAuthToken"}, []string{"delay"}, First, 1, "GetAuthToken/delay/first"},
		{"nothing called", nil, nil, nil, Both, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := Plan(c.called, c.only, KindFilter(c.kind), c.when, 10*time.Second)
			if len(rows) != c.rows || (len(rows) > 0 && rows[0].ID != c.first) {
				t.Fatalf("%d rows, first %+v; want %d, %s", len(rows), rows, c.rows, c.first)
			}
			for _, r := range rows {
				if (r.Action.Kind == "delay" || r.Action.Kind == "commit-then-delay") && r.Action.Delay.D() != 10*time.Second {
					t.Errorf("%s: delay %s, want --delay", r.ID, r.Action.Delay.D())
				}
			}
		})
	}
}

func TestCheckFilters(t *testing.T) {
	for _, c := range []struct {
		only, kinds []string
		when, want  string
	}{
		{[]string{"fetchCouponCode"}, []string{"coupon-error:MAX_LIMIT_REACHED", "delay"}, Both, ""},
		{[]string{"fetchCoupon"}, nil, Both, `"fetchCoupon" is not an endpoint`},
		{[]string{"ExitEvent"}, nil, Both, "ExitEvent shows no fault"},
		{nil, []string{"slow"}, Both, `"slow" is not a fault kind`},
		{nil, []string{"coupon-error:NOPE"}, Both, "only coupon-error takes a code"},
		{nil, nil, "twice", `"twice" is not first, every or both`},
	} {
		err := CheckFilters(c.only, c.kinds, c.when)
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckFilters(%v, %v, %s) = %v, want %q", c.only, c.kinds, c.when, err, c.want)
		}
	}
}

// claimEntry is a fetchCouponCode exchange of user U-1 on OFFER-DEMO.
func claimEntry(seq uint64, txn string, status int, fault, code string) journal.Entry {
	body, _ := json.Marshal(map[string]string{"virtualId": "U-1", "offerId": "OFFER-DEMO", "extTransactionId": txn, "channelName": "C", "coinsUsed": "100"})
	e := journal.Entry{Seq: seq, Kind: journal.KindExchange, At: time.Date(2026, 1, 1, 0, 0, int(seq), 0, time.UTC), Endpoint: "fetchCouponCode",
		Method: "POST", Path: "/api/fetchCouponCode", Channel: "C", ChannelID: "C", VirtualID: "U-1", Status: status, Fault: fault, ErrorCode: code}
	e.Request.Body = body
	if code != "" {
		e.Response.Body, _ = json.Marshal(map[string]any{"status": 409, "errorCode": code, "message": "injected"})
	}
	if fault == "commit-then-drop" {
		e.Dropped = true
	}
	return e
}

// listEntry is a getUserCoupons exchange of user U-1.
func listEntry(seq uint64) journal.Entry {
	e := journal.Entry{Seq: seq, Kind: journal.KindExchange, Endpoint: "getUserCoupons", Method: "POST", Path: "/api/getUserCoupons",
		Channel: "C", ChannelID: "C", VirtualID: "U-1", Status: 200}
	e.Request.Body = json.RawMessage(`{"virtualId":"U-1","channelName":"C"}`)
	return e
}

func TestGradeRun(t *testing.T) {
	ok := claimEntry(2, "T-1", 200, "", "")
	for _, c := range []struct {
		name        string
		ev          evidence
		base        baseline
		grade, next string
	}{
		{"never fired", evidence{fired: 0, entries: []journal.Entry{ok}}, baseline{}, NotReached, ""},
		{"retried the same id and passed", evidence{fired: 1, entries: []journal.Entry{claimEntry(1, "T-1", 200, "internal-error", "INTERNAL_ERROR"), ok}}, baseline{}, Handled, "retried same id ×1"},
		{"failed the tests", evidence{exit: 1, fired: 1, entries: []journal.Entry{claimEntry(1, "T-1", 200, "not-eligible", "NON_ELIGIBLE")}}, baseline{}, Surfaced, "gave up"},
		{"timed out", evidence{timedOut: true, exit: -1, fired: 1}, baseline{}, TimedOut, ""},
		// CPN-4: a new extTransactionId after a committed, dropped claim
		// (two deliveries and the report's finding).
		{"new id after commit-then-drop", evidence{fired: 1, entries: []journal.Entry{claimEntry(1, "T-1", 0, "commit-then-drop", ""), claimEntry(2, "T-2", 200, "", "")}}, baseline{}, Unsafe, "retried new id"},
		// CPN-3: a claim after COUPON_EXHAUSTED, under a new id.
		{"claim after exhausted", evidence{fired: 1, entries: []journal.Entry{claimEntry(1, "T-1", 200, "coupon-error COUPON_EXHAUSTED", "COUPON_EXHAUSTED"), claimEntry(2, "T-2", 200, "", "")}}, baseline{}, Unsafe, "retried new id"},
		{"reconciled a withheld claim", evidence{fired: 1, entries: []journal.Entry{claimEntry(1, "T-1", 499, "commit-then-delay", ""), listEntry(2)}}, baseline{}, Handled, "reconciled (getUserCoupons)"},
		{"a finding the baseline had too", evidence{fired: 1, entries: []journal.Entry{claimEntry(1, "T-1", 200, "coupon-error COUPON_EXHAUSTED", "COUPON_EXHAUSTED"), claimEntry(2, "T-2", 200, "", "")}},
			baseline{rules: map[string]bool{"claim-after-terminal-error": true}}, Handled, "retried new id"},
		// The fault could not have caused what another user did (a claim
		// after a terminal error of the fault's doing is only the faulted
		// user's), nor what happened on another channel or before it
		// fired, nor a webhook receiver's answer (WH-2).
		{"another user's finding", evidence{fired: 1, entries: []journal.Entry{claimEntry(1, "T-1", 200, "internal-error", "INTERNAL_ERROR"), ok,
			user(claimEntry(3, "T-3", 200, "", "COUPON_EXHAUSTED"), "U-2"), user(claimEntry(4, "T-4", 200, "", ""), "U-2")}}, baseline{}, Handled, "retried same id ×1"},
		{"another channel's finding", evidence{fired: 1, entries: []journal.Entry{claimEntry(1, "T-1", 200, "internal-error", "INTERNAL_ERROR"), ok,
			on(claimEntry(3, "T-3", 200, "", "COUPON_EXHAUSTED"), "D"), on(claimEntry(4, "T-4", 200, "", ""), "D")}}, baseline{}, Handled, "retried same id ×1"},
		{"a finding before the fault fired", evidence{fired: 1, entries: []journal.Entry{claimEntry(1, "T-1", 200, "", "COUPON_EXHAUSTED"), claimEntry(2, "T-2", 200, "", ""),
			claimEntry(3, "T-3", 200, "internal-error", "INTERNAL_ERROR"), claimEntry(4, "T-3", 200, "", "")}}, baseline{}, Handled, "retried same id ×1"},
		{"a webhook receiver that did not answer OK", evidence{fired: 1, entries: []journal.Entry{claimEntry(1, "T-1", 200, "internal-error", "INTERNAL_ERROR"), ok, pushEntry(3)}},
			baseline{}, Handled, "retried same id ×1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := gradeRun(c.ev, "fetchCouponCode", c.base)
			if v.grade != Unsafe && len(v.findings) > 0 && !strings.Contains(v.note, "not graded") {
				t.Errorf("a finding not graded is not said so: %q", v.note)
			}
			if v.grade != c.grade || v.next != c.next {
				t.Fatalf("grade %s, next %q (%s); want %s, %q", v.grade, v.next, v.note, c.grade, c.next)
			}
		})
	}
}

func user(e journal.Entry, virtualID string) journal.Entry {
	e.VirtualID = virtualID
	e.Request.Body = json.RawMessage(strings.ReplaceAll(string(e.Request.Body), `"U-1"`, `"`+virtualID+`"`))
	return e
}

func on(e journal.Entry, channel string) journal.Entry {
	e.Channel, e.ChannelID = channel, channel
	e.Request.Body = json.RawMessage(strings.ReplaceAll(string(e.Request.Body), `"channelName":"C"`, `"channelName":"`+channel+`"`))
	return e
}

// pushEntry is a coupon-status push to channel C that the receiver did
// not answer: its server closed while answering (WH-2).
func pushEntry(seq uint64) journal.Entry {
	e := journal.Entry{Seq: seq, Kind: journal.KindWebhook, Method: "POST", Path: "http://127.0.0.1:9/hooks", Channel: "C", Error: "connection reset by peer"}
	e.Request.Body = json.RawMessage(`{"channelName":"C","offerId":"OFFER-DEMO","eventType":"COUPON_STATUS"}`)
	return e
}

func TestNextMove_hammered(t *testing.T) {
	es := []journal.Entry{claimEntry(1, "T-1", 200, "internal-error", "INTERNAL_ERROR")}
	for i := 0; i < 12; i++ {
		e := claimEntry(uint64(2+i), "T-1", 200, "", "")
		e.At = es[0].At.Add(time.Duration(i) * 100 * time.Millisecond)
		es = append(es, e)
	}
	if got := nextMove(es, "fetchCouponCode"); got != "hammered: 12 calls in 1.1s" {
		t.Fatalf("next %q", got)
	}
}

// TestReport_followsItsSchema: sweep.json as Run writes it, rendered to
// the terminal and as a page, and checked against schemas/sweep.json.
func TestReport_followsItsSchema(t *testing.T) {
	rows := Plan([]string{"fetchCouponCode"}, nil, KindFilter([]string{"commit-then-drop", "coupon-error:COUPON_EXHAUSTED"}), Both, time.Second)
	rep := &Report{Version: SchemaVersion, Command: []string{"go", "test"}, Like: "DEMOBANK", When: Both, Parallel: 2, FailOn: Unsafe,
		Started: time.Now().UTC(), Called: []string{"fetchCouponCode"}, Totals: map[string]int{},
		Baseline: Result{Row: Row{ID: "baseline"}, Channel: "S-000", Grade: Handled, Findings: []Finding{}}, BaselineRuns: 2,
		BaselineFindings: []BaselineFinding{{Rule: "webhook-not-ok", Clause: "WH-2", Severity: "error", Title: "t", Runs: 1, From: []string{"a webhook push of test claim.test.mjs"}}}}
	for i, r := range rows {
		g := []string{Handled, Surfaced, Unsafe, NotReached}[i]
		rep.Rows = append(rep.Rows, Result{Row: r, Channel: "S-001", Grade: g, Findings: []Finding{}, Journal: "runs/001/journal.json", Diagram: "runs/001/sequence.svg"})
		rep.Totals[g]++
	}
	raw, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	set, err := schema.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if err := set.ValidateJSON("sweep", raw); err != nil {
		t.Fatal(err)
	}
	var term, page strings.Builder
	Terminal(&term, rep, false)
	if !strings.Contains(term.String(), "endpoint        C:EXH C+DROP\nfetchCouponCode +s    X-") {
		t.Errorf("terminal matrix:\n%s", term.String())
	}
	if err := HTML(&page, rep); err != nil || !strings.Contains(page.String(), `href="runs/001/sequence.svg"`) {
		t.Errorf("page: %v\n%s", err, page.String())
	}
}

func TestCallers(t *testing.T) {
	at := func(ch, endpoint string) journal.Entry {
		return journal.Entry{Kind: journal.KindExchange, Channel: ch, Endpoint: endpoint}
	}
	named := map[string]string{"A": "ClaimTest", "B": "CardTest", "B2": "CardTest"}
	for _, c := range []struct {
		name string
		runs []evidence
		want map[string][]string
	}{
		{"each endpoint's tests", []evidence{{tests: named, entries: []journal.Entry{at("A", "fetchCouponCode"), at("B", "GetReward"), at("B2", "fetchCouponCode")}}},
			map[string][]string{"fetchCouponCode": {"CardTest", "ClaimTest"}, "GetReward": {"CardTest"}}},
		{"the union of the baseline runs", []evidence{{tests: named, entries: []journal.Entry{at("A", "fetchCouponCode")}}, {tests: named, entries: []journal.Entry{at("B", "fetchCouponCode")}}},
			map[string][]string{"fetchCouponCode": {"CardTest", "ClaimTest"}}},
		{"a channel no test named runs every test", []evidence{{tests: named, entries: []journal.Entry{at("A", "fetchCouponCode"), at("RUN", "fetchCouponCode"), at("B", "GetReward")}}},
			map[string][]string{"GetReward": {"CardTest"}}},
		{"no library named a channel", []evidence{{entries: []journal.Entry{at("A", "fetchCouponCode")}}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := callers(c.runs)
			if len(got) != len(c.want) {
				t.Fatalf("callers %v, want %v", got, c.want)
			}
			for ep, tests := range c.want {
				if !slices.Equal(got[ep], tests) {
					t.Errorf("%s: %v, want %v", ep, got[ep], tests)
				}
			}
		})
	}
}

func TestExpandTests(t *testing.T) {
	for _, c := range []struct {
		command, only, want []string
	}{
		{[]string{"node", "--test", "{tests}"}, []string{"test/a.test.mjs", "test/b.test.mjs"}, []string{"node", "--test", "test/a.test.mjs", "test/b.test.mjs"}},
		{[]string{"node", "--test", "{tests}"}, nil, []string{"node", "--test"}},
		{[]string{"node", "--test", "{tests|test/a.test.mjs test/b.test.mjs}"}, nil, []string{"node", "--test", "test/a.test.mjs", "test/b.test.mjs"}},
		{[]string{"node", "--test", "{tests|test/a.test.mjs test/b.test.mjs}"}, []string{"test/b.test.mjs"}, []string{"node", "--test", "test/b.test.mjs"}},
		{[]string{"mvn", "test"}, []string{"X"}, []string{"mvn", "test"}},
	} {
		if got := expandTests(c.command, c.only); !slices.Equal(got, c.want) {
			t.Errorf("expandTests(%q, %q) = %q, want %q", c.command, c.only, got, c.want)
		}
	}
}
