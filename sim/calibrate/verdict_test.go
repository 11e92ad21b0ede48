package calibrate

import (
	"strings"
	"testing"
	"time"
)

// A switch the run did not determine is never "no drift": it is
// unchecked with its cause, or a drift when what the run narrowed it to
// excludes the scenario's reading; the verdict line counts each cause.
func TestCompare_uncheckedIsNoVerdict(t *testing.T) {
	const dt, ttl, dup = "switches.cards.dateandtime", "sessions.ttl", "switches.coupons.duplicate"
	for _, tc := range []struct {
		name      string
		scenario  string // an overlay's switches
		finding   Finding
		drift     string // the drift's target, "" for none
		unchecked string // the cause, "" for checked
		verdict   string
	}{
		{"needs writes", "", Finding{Switch: dup, Cause: CauseWrites, Why: "needs writes"}, "", CauseWrites,
			"drift unknown against the scenario: none among 0 checked; 1 not checked: 1 need --allow-writes"},
		{"found the same", "", Finding{Switch: dup, Determined: true, Value: "original", Evidence: []string{"e"}}, "", "",
			"no drift against the scenario: 1 checked"},
		{"found otherwise", "", Finding{Switch: dup, Determined: true, Value: "reject", Evidence: []string{"e"}}, "reject", "",
			"1 drifted against the scenario among 1 checked"},
		{"candidates holding the scenario's", "switches: {cards: {dateandtime: now}}",
			Finding{Switch: dt, Cause: CauseUnobservable, Why: "w", Candidates: []string{"accept", "now"}}, "", CauseUnobservable,
			"no drift against the scenario: 0 checked; 1 not checked: 1 not observable from a publisher's side"},
		{"candidates without the scenario's", "",
			Finding{Switch: dt, Cause: CauseUnobservable, Why: "w", Candidates: []string{"accept", "now"}}, "accept or now", "",
			"1 drifted against the scenario among 1 checked"},
		{"a session outliving the wait, the scenario's shorter", "sessions: {ttl: 5s}",
			Finding{Switch: ttl, Cause: CauseWait, Why: "w", AtLeast: "10s"}, "longer than 10s", "", "1 drifted"},
		{"a session outliving the wait, the scenario's longer", "sessions: {ttl: 1h}",
			Finding{Switch: ttl, Cause: CauseWait, Why: "w", AtLeast: "10s"}, "", CauseWait,
			"drift unknown against the scenario: none among 0 checked; 1 not checked: 1 need waiting (--wait)"},
		{"a session outliving the wait, the scenario's never", "",
			Finding{Switch: ttl, Cause: CauseWait, Why: "w", AtLeast: "10s"}, "", CauseUnobservable,
			"no drift against the scenario: 0 checked; 1 not checked: 1 not observable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := ParseScenario("s.yaml", []byte("version: 1\nextends: default\n"+tc.scenario+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			rep := &Report{Findings: []Finding{tc.finding}}
			drift := rep.Compare(sc)
			switch {
			case tc.drift == "" && len(drift) > 0, tc.drift != "" && (len(drift) != 1 || drift[0].Target != tc.drift):
				t.Errorf("drift %+v, want %q", drift, tc.drift)
			}
			got := ""
			if len(rep.Against.Unchecked) == 1 {
				got = rep.Against.Unchecked[0].Cause
			}
			if got != tc.unchecked {
				t.Errorf("unchecked %+v, want cause %q", rep.Against.Unchecked, tc.unchecked)
			}
			if !strings.HasPrefix(rep.Against.Verdict, tc.verdict) {
				t.Errorf("verdict %q, want %q", rep.Against.Verdict, tc.verdict)
			}
		})
	}
}

// A lifetime is read as the roundest duration the span it was seen in
// allows, and is sure only when no other as round fits.
func TestRoundest(t *testing.T) {
	s, m := time.Second, time.Minute
	for _, tc := range []struct {
		lo, hi, want time.Duration
		sure         bool
	}{
		{2*s + 20*time.Millisecond, 3*s + 40*time.Millisecond, 3 * s, true},
		{4 * s, 5*s + 10*time.Millisecond, 5 * s, true},
		{29*m + 10*s, 31*m + 40*s, 30 * m, true},
		{59 * m, 61 * m, time.Hour, true},
		{5*m + 50*s, 7*m + 5*s, 6 * m, false}, // 6m or 7m
		{0, 20 * s, 15 * s, false},            // 10s and 20s as well
		{14*m + 20*s, 15*m + 30*s, 15 * m, true},
		{2*s + 100*time.Millisecond, 2*s + 600*time.Millisecond, 2*s + 600*time.Millisecond, false},
	} {
		if got, sure := roundest(tc.lo, tc.hi); got != tc.want || sure != tc.sure {
			t.Errorf("roundest(%v, %v) = %v %v, want %v %v", tc.lo, tc.hi, got, sure, tc.want, tc.sure)
		}
	}
}

// Without a comparison, --fail-on-unchecked counts the switches not
// determined that some run could decide; never the unobservable ones.
func TestReport_open(t *testing.T) {
	rep := &Report{Findings: []Finding{
		{Switch: "switches.coupons.duplicate", Cause: CauseWrites, Why: "needs writes"},
		{Switch: "switches.webhook.deadline", Cause: CauseUnobservable, Why: "not observable"},
		{Switch: "switches.failureHttpStatus", Determined: true, Value: "200"},
	}}
	if n := rep.Open(); n != 1 {
		t.Errorf("open %d, want 1 (the write switch)", n)
	}
}
