package sim_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

type reportDoc struct {
	Channel   string
	Exchanges int
	Findings  []struct {
		ID, Clause, Severity string
		Count                int
		Example              struct {
			Seq          uint64
			Path, Detail string
			Status       int
		}
	}
	Totals map[string]int
}

func report(t *testing.T, s *simtest.Server, query string) reportDoc {
	t.Helper()
	var r reportDoc
	if st := controlJSON(t, s, "/__sim/report?"+query, "report", &r); st != http.StatusOK {
		t.Fatalf("GET /__sim/report?%s: HTTP %d", query, st)
	}
	return r
}

func findingIDs(r reportDoc) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Clause+"/"+f.ID)
	}
	return out
}

// clause: SIM-6
func TestReport_SIM6_correctPublisherHasNoFindings(t *testing.T) {
	s := simtest.New(t)
	tokenFlowCorrect(t, s.Client)
	r := report(t, s, "")
	if len(r.Findings) != 0 || r.Exchanges != 5 {
		t.Errorf("a correct publisher: %d exchanges, findings %v", r.Exchanges, findingIDs(r))
	}
}

// tokenFlowCorrect caches the reference token and asks user tokens and
// sessions per user.
func tokenFlowCorrect(t *testing.T, c *publisher.Client) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.ReferenceToken(ctx); err != nil {
		t.Fatal(err)
	}
	for _, vid := range []string{"VU-1", "VU-2"} {
		if _, err := c.UserToken(ctx, vid); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Session(ctx, vid); err != nil {
			t.Fatal(err)
		}
	}
}

// clause: SIM-6, ENV-2
func TestReport_SIM6_ENV2_signatureOverDecodedJSON(t *testing.T) {
	s := simtest.New(t)
	payload := `{"bName":"DEMOBANK"}`
	bdata := base64.StdEncoding.EncodeToString([]byte(payload))
	wrong, err := publisher.Sign(s.PublisherKey, payload) // over the JSON, not the base64 string
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Client.PostEnvelope(context.Background(), s.RewardsURL+"/api/getSecuredReferenceToken", "", publisher.Envelope{CHANNELID: "DEMOBANK", SIGN: wrong, BDATA: bdata})
	if !publisher.IsFailure(err, "Signature Mismatch!") {
		t.Fatalf("signature over the JSON: %v", err)
	}
	r := report(t, s, "channel=DEMOBANK")
	if len(r.Findings) != 1 || r.Findings[0].Clause != "ENV-2" || r.Findings[0].Severity != "error" || r.Findings[0].Example.Seq != 1 {
		t.Fatalf("findings %+v, want one ENV-2 error with exchange #1 as example", r.Findings)
	}
}

// clause: SIM-6, TOK-5
func TestReport_SIM6_TOK5_referenceTokenFetchedPerRequest(t *testing.T) {
	cases := []struct {
		name    string
		fetches int
		every   time.Duration
		want    int // findings counted
	}{
		{"per-request", 7, time.Minute, 3},             // 5th, 6th and 7th within the hour
		{"hourly-refresh", 6, time.Hour, 0},            // the advised schedule
		{"four-an-hour", 4, 15 * time.Minute, 0},       // at the threshold
		{"five-in-59-minutes", 5, 14 * time.Minute, 1}, // one over
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := simtest.New(t)
			for i := 0; i < c.fetches; i++ {
				if i > 0 {
					s.Clock.Advance(c.every)
				}
				if _, err := s.Client.ReferenceToken(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			r := report(t, s, "")
			got := 0
			for _, f := range r.Findings {
				if f.Clause == "TOK-5" {
					got = f.Count
					if f.Severity != "warning" || !strings.Contains(f.Example.Detail, "threshold 4") {
						t.Errorf("TOK-5 finding %+v", f)
					}
				}
			}
			if got != c.want || len(r.Findings) > 1 {
				t.Errorf("TOK-5 count %d, want %d (findings %v)", got, c.want, findingIDs(r))
			}
		})
	}
}

// clause: SIM-6, NA-1
func TestReport_SIM6_NA1_registerAndExitEventAreRecordedAndReported(t *testing.T) {
	s := simtest.New(t, simtest.WithSplitHosts())
	ctx := context.Background()
	env, err := publisher.Seal(s.PublisherKey, "DEMOBANK", map[string]string{"virtualId": "VU-1", "channelName": "DEMOBANK", "eventType": "register"})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(env)
	for _, p := range []string{"/api/RegisterEvent", "/api/ExitEvent"} {
		res, err := s.Client.Do(ctx, http.MethodPost, s.BankURL+p, nil, body)
		if err != nil || res.StatusCode != http.StatusNotFound {
			t.Fatalf("%s: %v %v, want HTTP 404", p, res, err)
		}
	}
	p := journal(t, s, "endpoint=/api/RegisterEvent")
	if len(p.Entries) != 1 || p.Entries[0].Listener != "bank" || p.Entries[0].VirtualID != "VU-1" || p.Entries[0].Status != 404 {
		t.Fatalf("RegisterEvent journaled as %+v", p.Entries)
	}
	r := report(t, s, "channel=DEMOBANK")
	if len(r.Findings) != 1 || r.Findings[0].Clause != "NA-1" || r.Findings[0].Count != 2 || r.Findings[0].Severity != "error" || r.Totals["error"] != 1 {
		t.Fatalf("findings %+v, want NA-1 counted twice", r.Findings)
	}
	if other := report(t, s, "channel=OTHER"); len(other.Findings) != 0 {
		t.Errorf("another channel's report: %v", findingIDs(other))
	}
	// A time range scopes the report to one test run.
	later := strings.ReplaceAll(simtest.Start.Add(time.Second).Format(time.RFC3339), "+", "%2B")
	if r := report(t, s, "from="+later); len(r.Findings) != 0 || r.Exchanges != 0 {
		t.Errorf("report from %s: %d exchanges, %v", later, r.Exchanges, findingIDs(r))
	}

	res, err := http.Get(s.ControlURL + "/__sim/report.html?channel=DEMOBANK")
	if err != nil {
		t.Fatal(err)
	}
	html, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") || !strings.Contains(string(html), "NA-1") || !strings.Contains(string(html), "POST /api/RegisterEvent") {
		t.Errorf("HTML report (%s):\n%s", ct, html)
	}
}

// clause: SIM-6
func TestReport_SIM6_badQueryIs400(t *testing.T) {
	s := simtest.New(t)
	var msg struct{ Error string } // the control API's error shape
	if st := controlJSON(t, s, "/__sim/report?refTokenPerHour=0", "", &msg); st != http.StatusBadRequest || msg.Error == "" {
		t.Errorf("refTokenPerHour=0: HTTP %d %q", st, msg.Error)
	}
}
