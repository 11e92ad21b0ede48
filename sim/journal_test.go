package sim_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
	"github.com/rewardsim/rewardsim/sim/internal/secrets"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// controlJSON GETs a control path, checks the answer against schemaName
// (when set) and decodes it into out; it returns the HTTP status.
func controlJSON(t *testing.T, s *simtest.Server, path, schemaName string, out any) int {
	t.Helper()
	res, err := http.Get(s.ControlURL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode == http.StatusOK && schemaName != "" {
		set, err := schema.Compile(schemas.FS)
		if err != nil {
			t.Fatal(err)
		}
		if err := set.ValidateJSON(schemaName, body); err != nil {
			t.Fatalf("%s answer breaks schemas/%s.json: %v\n%s", path, schemaName, err, body)
		}
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			t.Fatalf("%s: %v: %s", path, err, body)
		}
	}
	return res.StatusCode
}

type journalPage struct {
	Entries []struct {
		Seq        uint64
		Kind       string
		At         time.Time
		LatencyMs  float64
		Listener   string
		Host       string
		Endpoint   string
		Method     string
		Path       string
		Channel    string
		ChannelID  string
		VirtualID  string
		Status     int
		Reason     string
		Fault      string
		Dropped    bool
		ClientGone bool
		Request    struct {
			Header map[string]string
			Body   json.RawMessage
			BDATA  json.RawMessage
		}
		Response struct {
			Header map[string]string
			Body   json.RawMessage
			BDATA  json.RawMessage
		}
	}
	Next    uint64
	Stored  int
	Dropped uint64
}

func journal(t *testing.T, s *simtest.Server, query string) journalPage {
	t.Helper()
	var p journalPage
	if st := controlJSON(t, s, "/__sim/journal?"+query, "journal-page", &p); st != http.StatusOK {
		t.Fatalf("GET /__sim/journal?%s: HTTP %d", query, st)
	}
	return p
}

// post sends a raw request to the simulator.
func post(t *testing.T, s *simtest.Server, path string, header http.Header, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.RewardsURL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	res, err := s.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

// clause: SIM-4
func TestJournal_SIM4_recordsEveryExchangeWithSecretsMasked(t *testing.T) {
	s := simtest.New(t, simtest.WithSplitHosts())
	ctx := context.Background()
	if _, err := s.Client.ReferenceToken(ctx); err != nil {
		t.Fatal(err)
	}
	ut, err := s.Client.UserToken(ctx, "VU-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client.Session(ctx, "VU-2"); err != nil {
		t.Fatal(err)
	}
	// A bearer header on an unknown path: journaled, and the token masked.
	res := post(t, s, "/api/RegisterEvent", http.Header{"Authorization": {"Bearer " + ut.Token}, "X-Api-Key": {"topsecret"}}, `{"x":1}`)
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("RegisterEvent: HTTP %d, want 404", res.StatusCode)
	}

	p := journal(t, s, "")
	if len(p.Entries) != 4 || p.Stored != 4 || p.Dropped != 0 {
		t.Fatalf("journal holds %d entries (stored %d, dropped %d), want 4", len(p.Entries), p.Stored, p.Dropped)
	}
	want := []struct{ endpoint, host, listener, virtualID, path string }{
		{"getSecuredReferenceToken", "rewards", "rewards", "", "/api/getSecuredReferenceToken"},
		{"GetAuthToken", "rewards", "rewards", "VU-1", "/api/GetAuthToken"},
		{"GenerateSessionInfoV2", "bank", "bank", "VU-2", "/api/GenerateSessionInfoV2"},
		{"RegisterEvent", "bank", "rewards", "VU-1", "/api/RegisterEvent"}, // a bank path heard on the rewards listener; virtualId from the token's owner
	}
	for i, w := range want {
		e := p.Entries[i]
		if e.Endpoint != w.endpoint || e.Host != w.host || e.Listener != w.listener || e.VirtualID != w.virtualID || e.Path != w.path {
			t.Errorf("entry %d = %s/%s/%s/%q %s, want %+v", i, e.Endpoint, e.Host, e.Listener, e.VirtualID, e.Path, w)
		}
		if e.Channel != "DEMOBANK" || e.Seq != uint64(i+1) || e.Kind != "exchange" || e.LatencyMs < 0 {
			t.Errorf("entry %d: channel %q seq %d kind %s latency %v", i, e.Channel, e.Seq, e.Kind, e.LatencyMs)
		}
		if !e.At.Equal(simtest.Start) {
			t.Errorf("entry %d at %v, want the simulated time %v", i, e.At, simtest.Start)
		}
	}
	// Envelopes are journaled decoded, both ways.
	if got := string(p.Entries[1].Request.BDATA); got != `{"channelName":"DEMOBANK","virtualId":"VU-1"}` {
		t.Errorf("GetAuthToken request BDATA = %s", got)
	}
	// Credentials in bodies are shown as their fingerprints (issue 11).
	var tok struct{ Token string }
	if err := json.Unmarshal(p.Entries[1].Response.BDATA, &tok); err != nil || tok.Token != secrets.Fingerprint(ut.Token) {
		t.Errorf("GetAuthToken answer BDATA = %s, want the token's fingerprint", p.Entries[1].Response.BDATA)
	}
	if raw, _ := json.Marshal(p); strings.Contains(string(raw), ut.Token) {
		t.Errorf("the user token reached the journal API in clear")
	}
	h := p.Entries[3].Request.Header
	if strings.Contains(fmt.Sprint(h), ut.Token) || strings.Contains(fmt.Sprint(h), "topsecret") {
		t.Errorf("a secret reached the journal: %v", h)
	}
	if !strings.HasPrefix(h["Authorization"], "Bearer ~fp:") || !strings.HasPrefix(h["X-Api-Key"], "~fp:") {
		t.Errorf("masked headers = %v, want fingerprints", h)
	}
	if p.Entries[3].Status != 404 || !strings.Contains(string(p.Entries[3].Response.Body), "no such endpoint") {
		t.Errorf("RegisterEvent answer journaled as %d %s", p.Entries[3].Status, p.Entries[3].Response.Body)
	}
}

// clause: SIM-4
func TestJournal_SIM4_filtersAndPaging(t *testing.T) {
	s := simtest.New(t)
	ctx := context.Background()
	for i, vid := range []string{"VU-1", "VU-2", "VU-1", "VU-3"} {
		if i > 0 {
			s.Clock.Advance(time.Minute)
		}
		if _, err := s.Client.UserToken(ctx, vid); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Client.ReferenceToken(ctx); err != nil {
		t.Fatal(err)
	}
	at := func(min int) string {
		return url.QueryEscape(simtest.Start.Add(time.Duration(min) * time.Minute).Format(time.RFC3339))
	}
	cases := []struct {
		query string
		seqs  []uint64
	}{
		{"", []uint64{1, 2, 3, 4, 5}},
		{"virtualId=VU-1", []uint64{1, 3}},
		{"endpoint=getSecuredReferenceToken", []uint64{5}},
		{"endpoint=/api/GetAuthToken", []uint64{1, 2, 3, 4}},
		{"channel=DEMOBANK&virtualId=VU-3", []uint64{4}},
		{"channel=OTHER", nil},
		{"from=" + at(1) + "&to=" + at(3), []uint64{2, 3}},
		{"kind=webhook", nil},
	}
	for _, c := range cases {
		p := journal(t, s, c.query)
		var got []uint64
		for _, e := range p.Entries {
			got = append(got, e.Seq)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.seqs) {
			t.Errorf("?%s: seqs %v, want %v", c.query, got, c.seqs)
		}
	}
	// Paging: limit, next, after.
	var all []uint64
	after := uint64(0)
	for page := 0; page < 10; page++ {
		p := journal(t, s, fmt.Sprintf("limit=2&after=%d", after))
		for _, e := range p.Entries {
			all = append(all, e.Seq)
		}
		if p.Next == 0 {
			break
		}
		after = p.Next
	}
	if fmt.Sprint(all) != "[1 2 3 4 5]" {
		t.Errorf("paged through %v, want [1 2 3 4 5]", all)
	}
	for _, bad := range []string{"limit=0", "limit=5000", "after=x", "from=yesterday"} {
		var msg struct{ Error string } // the control API's error shape
		if st := controlJSON(t, s, "/__sim/journal?"+bad, "", &msg); st != http.StatusBadRequest || msg.Error == "" {
			t.Errorf("?%s: HTTP %d %q, want 400 with an error", bad, st, msg.Error)
		}
	}
}

// clause: SIM-4
func TestJournal_SIM4_recordsTheFaultThatFired(t *testing.T) {
	s := simtest.New(t, simtest.WithScenarioYAML(`version: 1
name: faulty
channels:
  - name: DEMOBANK
    certificateFile: builtin:publisher-dev.crt
faults:
  - endpoint: GenerateSessionInfoV2
    nth: 2
    action: {kind: internal-error}
`))
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		_, err := s.Client.Session(ctx, "VU-1")
		if (i == 1) != publisher.IsFailure(err, "Internal Error!") {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	p := journal(t, s, "endpoint=GenerateSessionInfoV2")
	var faults []string
	for _, e := range p.Entries {
		faults = append(faults, e.Fault)
	}
	if fmt.Sprint(faults) != "[ internal-error ]" {
		t.Errorf("faults journaled: %q, want only the second call's internal-error", faults)
	}
}

// clause: SIM-4
func TestJournal_SIM4_boundByCountAndAge(t *testing.T) {
	cases := []struct {
		name    string
		opts    sim.JournalOptions
		advance time.Duration
		want    []uint64
	}{
		{"count", sim.JournalOptions{MaxEntries: 3}, 0, []uint64{4, 5, 6}},
		{"age", sim.JournalOptions{MaxEntries: -1, MaxAge: 150 * time.Minute}, time.Hour, []uint64{4, 5, 6}},
		{"count-and-age", sim.JournalOptions{MaxEntries: 2, MaxAge: 150 * time.Minute}, time.Hour, []uint64{5, 6}},
		{"unbounded", sim.JournalOptions{MaxEntries: -1}, time.Hour, []uint64{1, 2, 3, 4, 5, 6}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := simtest.New(t, simtest.WithJournal(c.opts))
			for i := 0; i < 6; i++ {
				s.Clock.Advance(c.advance)
				post(t, s, "/api/nothing", http.Header{}, "")
				// Each write is its own batch: flush through the control API.
				journal(t, s, "limit=1")
			}
			p := journal(t, s, "")
			var got []uint64
			for _, e := range p.Entries {
				got = append(got, e.Seq)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) || p.Stored != len(c.want) {
				t.Errorf("kept %v (stored %d), want %v", got, p.Stored, c.want)
			}
		})
	}
}

// clause: SIM-4
func TestJournal_SIM4_disabledRecordsNothing(t *testing.T) {
	s := simtest.New(t, simtest.WithJournal(sim.JournalOptions{Disabled: true}))
	if _, err := s.Client.ReferenceToken(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p := journal(t, s, ""); len(p.Entries) != 0 {
		t.Errorf("disabled journal holds %d entries", len(p.Entries))
	}
}

// clause: SIM-4
func TestJournal_SIM4_survivesRestartAndContinuesSequence(t *testing.T) {
	dir, clk := t.TempDir(), simtest.NewClock()
	s := simtest.New(t, simtest.WithDataDir(dir), simtest.WithClock(clk))
	post(t, s, "/api/a", http.Header{}, "")
	post(t, s, "/api/b", http.Header{}, "")
	s.Close() // flushes the journal
	s = simtest.New(t, simtest.WithDataDir(dir), simtest.WithClock(clk))
	post(t, s, "/api/c", http.Header{}, "")
	p := journal(t, s, "")
	var got []string
	for _, e := range p.Entries {
		got = append(got, fmt.Sprint(e.Seq, e.Path))
	}
	if fmt.Sprint(got) != "[1/api/a 2/api/b 3/api/c]" {
		t.Errorf("after restart: %v", got)
	}
}

// clause: SIM-4
// The journal attributes a call by what admitted it, never by what its
// body claims: a signed call of DEMOBANK whose BDATA names another
// channel is DEMOBANK's; a call nothing admitted (an unknown CHANNELID)
// is attributed by what it carries.
func TestJournal_SIM4_attributedByWhatAdmittedIt(t *testing.T) {
	s := simtest.New(t)
	ctx := context.Background()
	if _, err := s.Client.CallSigned(ctx, s.Client.RewardsURL+"/api/GetAuthToken", "", map[string]any{"channelName": "OTHERBANK", "virtualId": "VU-7"}); err != nil {
		t.Logf("GetAuthToken naming another channel: %v", err) // refused or not, it is DEMOBANK's call
	}
	res := post(t, s, "/api/GetAuthToken", http.Header{"Content-Type": {"application/json"}},
		`{"CHANNELID":"NOSUCH","BDATA":"`+base64.StdEncoding.EncodeToString([]byte(`{"channelName":"NOSUCH-BANK","virtualId":"VU-8"}`))+`","SIGN":"x"}`)
	if res.StatusCode == http.StatusOK && res.Header.Get("X-Rewardsim-Reason") == "" {
		t.Fatalf("an unknown CHANNELID was admitted")
	}
	p := journal(t, s, "")
	if len(p.Entries) != 2 {
		t.Fatalf("%d entries, want 2", len(p.Entries))
	}
	if e := p.Entries[0]; e.Channel != "DEMOBANK" || e.ChannelID != s.Client.ChannelID || e.VirtualID != "VU-7" {
		t.Errorf("admitted call attributed to %q %q %q, want DEMOBANK %q VU-7", e.Channel, e.ChannelID, e.VirtualID, s.Client.ChannelID)
	}
	if e := p.Entries[1]; e.Channel != "NOSUCH-BANK" || e.ChannelID != "NOSUCH" || e.VirtualID != "VU-8" {
		t.Errorf("refused call attributed to %q %q %q, want what it carries", e.Channel, e.ChannelID, e.VirtualID)
	}
}
