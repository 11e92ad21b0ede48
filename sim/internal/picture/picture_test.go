package picture

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/outcome"
	"github.com/rewardsim/rewardsim/sim/internal/recfile"
)

func TestCalls_lanes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		e        journal.Entry
		from, to string
		label    string
	}{
		{"contract host", journal.Entry{Kind: journal.KindExchange, Host: "bank", Listener: "all", Endpoint: "GenerateSessionInfoV2"}, Publisher, Bank, "GenerateSessionInfoV2"},
		{"split listener", journal.Entry{Kind: journal.KindExchange, Listener: "hotdeals", Method: "GET", Path: "/x"}, Publisher, Hotdeals, "GET /x"},
		{"asset on the shared listener", journal.Entry{Kind: journal.KindExchange, Listener: "all", Method: "GET", Path: "/assets/app.js"}, Publisher, Bank, "GET /assets/app.js"},
		{"coupon redirect", journal.Entry{Kind: journal.KindExchange, Listener: "all", Method: "GET", Path: "/hotdeals/r/DEMOBANK/O1"}, Publisher, Hotdeals, "GET /hotdeals/r/DEMOBANK/O1"},
		{"tracking", journal.Entry{Kind: journal.KindExchange, Listener: "all", Method: "GET", Path: "/track/click"}, Publisher, Rewards, "GET /track/click"},
		{"webhook attempt", journal.Entry{Kind: journal.KindWebhook, Method: "POST", Path: "http://127.0.0.1:1/hook"}, Hotdeals, Receiver, "webhook push"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Calls([]journal.Entry{tc.e})[0]
			if c.From != tc.from || c.To != tc.to || c.Label != tc.label {
				t.Errorf("call = %+v, want %s -> %s %q", c, tc.from, tc.to, tc.label)
			}
		})
	}
}

func TestSequence_escapesAndBounds(t *testing.T) {
	var b strings.Builder
	calls := make([]Call, MaxCalls+5)
	for i := range calls {
		calls[i] = Call{Seq: uint64(i + 1), From: Publisher, To: Rewards, Label: "<op>", Status: 200, Fault: `"x"`}
	}
	if err := Sequence(&b, "t<", calls); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "<op>") || strings.Contains(out, "<title>t<") {
		t.Error("text is not escaped")
	}
	if n := strings.Count(out, `class="call"`); n != MaxCalls {
		t.Errorf("%d calls drawn, want the last %d", n, MaxCalls)
	}
	if !strings.Contains(out, `data-seq="6"`) || strings.Contains(out, `data-seq="5"`) || !strings.Contains(out, "5 earlier ones left out") {
		t.Error("the diagram does not keep the last calls and say how many it left out")
	}
}

func TestStock_stepsDownAtEachClaim(t *testing.T) {
	now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	var b strings.Builder
	if err := Stock(&b, "offer O1", 5, []time.Time{now.Add(-time.Minute), now.Add(-2 * time.Minute)}, now); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `data-left="3"`) {
		t.Errorf("stock picture: %s", b.String())
	}
}

// clause: SIM-4, SIM-6
// A recording's steps become calls numbered from 1 to the host that
// served them (the step's host, else the contract's, else by path), with
// the recorded status, and the reason header split into the fault that
// fired or the reason given.
func TestRecordingCalls(t *testing.T) {
	for _, tc := range []struct {
		name          string
		st            recfile.Step
		to, label     string
		status        int
		fault, reason string
	}{
		{"step host", recfile.Step{Host: "bank", Endpoint: "GenerateSessionInfoV2", Method: "POST", Path: "/api/GenerateSessionInfoV2", Expect: recfile.Expect{Status: 200}},
			Bank, "GenerateSessionInfoV2", 200, "", ""},
		{"contract host when the step has none", recfile.Step{Endpoint: "fetchCouponCode", Method: "POST", Path: "/api/fetchCouponCode", Expect: recfile.Expect{Status: 200}},
			Hotdeals, "fetchCouponCode", 200, "", ""},
		{"placeholder path", recfile.Step{Host: "rewards", Method: "GET", Path: "${s5.url}", Expect: recfile.Expect{Status: 204}},
			Rewards, "GET ${s5.url}", 204, "", ""},
		{"injected fault", recfile.Step{Host: "rewards", Endpoint: "GetReward", Method: "POST", Path: "/api/GetReward",
			Expect: recfile.Expect{Status: 500, Header: map[string]string{"X-Rewardsim-Reason": "injected fault: gr-500"}}},
			Rewards, "GetReward", 500, "gr-500", ""},
		{"reason, header name in any case", recfile.Step{Host: "rewards", Endpoint: "GetReward", Method: "POST", Path: "/api/GetReward",
			Expect: recfile.Expect{Status: 401, Header: map[string]string{"x-rewardsim-reason": "token expired"}}},
			Rewards, "GetReward", 401, "", "token expired"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := RecordingCalls([]recfile.Step{{Method: "GET", Path: "/first", Expect: recfile.Expect{Status: 200}}, tc.st})
			c := cs[1]
			if c.Seq != 2 || c.From != Publisher || c.To != tc.to || c.Label != tc.label || c.Status != tc.status || c.Fault != tc.fault || c.Reason != tc.reason {
				t.Errorf("call = %+v, want #2 %s -> %s %q %d fault %q reason %q", c, Publisher, tc.to, tc.label, tc.status, tc.fault, tc.reason)
			}
			var b strings.Builder
			if err := Sequence(&b, "t", cs); err != nil {
				t.Fatal(err)
			}
			if tc.fault != "" && !strings.Contains(b.String(), "· fault "+tc.fault) || tc.reason != "" && !strings.Contains(b.String(), "· "+tc.reason) {
				t.Errorf("the answer's text lacks the fault or reason: %s", b.String())
			}
		})
	}
}

// Issue 24: a stock of 1,000,000 with two claims draws the claims on
// their own scale, writes the numbers grouped (the axis label fits its
// margin), and the times in the location of now (the scenario's).
func TestStock_readableAtAMillion(t *testing.T) {
	ist := time.FixedZone("+05:30", 5*3600+1800)
	now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	var b strings.Builder
	if err := Stock(&b, "offer O1", 1_000_000, []time.Time{now.Add(-time.Minute), now.Add(-2 * time.Minute)}, now.In(ist)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`data-left="999998"`, "2 claimed, 999,998 of 1,000,000 left", `text-anchor="end">2</text>`, "01-01 15:30:00 +05:30"} {
		if !strings.Contains(out, want) {
			t.Errorf("stock picture lacks %q: %s", want, out)
		}
	}
	if strings.Contains(out, ">1000000<") {
		t.Errorf("the axis is the stock, not the claims: %s", out)
	}
}

// Issue 24: labels wrap at spaces, never mid-word, and a long label is
// moved in so it stays inside the picture.
func TestSequence_labelsWrapAndStayInside(t *testing.T) {
	long := "token has expired: the user token of VU-1 expired at 2026-01-15 10:30:00 +05:30 and cannot be used any more, fetch another"
	var b strings.Builder
	if err := Sequence(&b, "t", []Call{{Seq: 1, From: Publisher, To: Rewards, Label: "GetReward", Status: 401, Reason: long}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "cannot be used any more, fetch another") && !strings.Contains(out, ">fetch another<") {
		t.Errorf("the reason was cut: %s", out)
	}
	for _, l := range wrap(long, 40) {
		if len(l) > 40 || strings.HasPrefix(l, " ") {
			t.Errorf("wrapped line %q", l)
		}
	}
	if got := strings.Join(wrap(long, 40), " "); got != long {
		t.Errorf("wrap lost words: %q", got)
	}
	if !strings.Contains(out, `data-outcome="refusal"`) || !strings.Contains(out, OutcomeColors[outcome.Refusal]) {
		t.Errorf("a 401 is not drawn as a refusal: %s", out)
	}
}

// Issue 23, readers bounded by the page: a diagram fed entry by entry
// keeps only the calls it draws, whatever the stream's length.
func TestTail_keepsOnlyTheCallsDrawn(t *testing.T) {
	var tail Tail
	const n = 10 * MaxCalls
	for i := 1; i <= n; i++ {
		tail.Add(journal.Entry{Seq: uint64(i), Kind: journal.KindExchange, Method: "GET", Path: "/api/x", Status: 200})
		if len(tail.calls) > MaxCalls || cap(tail.calls) > 2*MaxCalls {
			t.Fatalf("after %d entries the tail holds %d calls (cap %d)", i, len(tail.calls), cap(tail.calls))
		}
	}
	var b strings.Builder
	if err := tail.Sequence(&b, "t"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	first := n - MaxCalls + 1
	if strings.Count(out, `class="call"`) != MaxCalls || !strings.Contains(out, fmt.Sprintf(`data-seq="%d"`, first)) ||
		strings.Contains(out, fmt.Sprintf(`data-seq="%d"`, first-1)) || !strings.Contains(out, fmt.Sprintf("%d earlier ones left out", n-MaxCalls)) {
		t.Error("the tail does not draw the last calls in order and say how many it left out")
	}
	if i, j := strings.Index(out, fmt.Sprintf(`data-seq="%d"`, first)), strings.Index(out, fmt.Sprintf(`data-seq="%d"`, n)); i > j {
		t.Error("calls are not drawn oldest first")
	}
}

// Issue 43 item 10: an arrow says how long its answer took, and a fault
// that withholds a committed claim's answer says the claim was committed.
func TestSequence_timingsAndCommittedClaims(t *testing.T) {
	cs := Calls([]journal.Entry{
		{Seq: 1, Kind: journal.KindExchange, Host: Hotdeals, Endpoint: "fetchCouponCode", Status: 200, LatencyMs: 3.46, Outcome: outcome.Success},
		{Seq: 2, Kind: journal.KindExchange, Host: Hotdeals, Endpoint: "fetchCouponCode", Status: 200, LatencyMs: 30012, Fault: fault.CommitThenDelay, Outcome: outcome.Fault},
		{Seq: 3, Kind: journal.KindExchange, Host: Hotdeals, Endpoint: "fetchCouponCode", Fault: fault.CommitThenDrop, Outcome: outcome.Transport},
	})
	var b strings.Builder
	if err := Sequence(&b, "t", cs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"200 · 3.5 ms", "fault commit-then-delay (the claim was committed, answered late) · 30.0 s",
		"no answer · fault commit-then-drop (the claim was committed, no answer)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the diagram lacks %q", want)
		}
	}
}
