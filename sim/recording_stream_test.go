package sim_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim"
	journalpkg "github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/recfile"
	recreplay "github.com/rewardsim/rewardsim/sim/internal/replay"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: SIM-4
// Issue 23: the export streams its steps from two paged reads of the
// journal instead of building the recording in memory; it must write the
// very bytes the in-memory Build writes for the same entries, on a
// journal with every kind of link between answers and later requests
// (tokens in headers, the rewardId in an envelope, trackLinks and the
// coupon URL followed, a microsite page by sessionId, a webhook push),
// failures and bodies that are not JSON.
func TestRecording_streamedExportIsTheInMemoryBuild(t *testing.T) {
	s := simtest.New(t)
	fullFlow(t, s.Client)
	tokenFlow(t, s.Client)
	sess, err := s.Client.Session(t.Context(), "VU-1")
	if err != nil {
		t.Fatal(err)
	}
	q := url.Values{"sessionId": {sess.SessionID}, "virtualId": {"VU-1"}}
	if res, err := s.HTTP.Get(s.BankURL + "/microsite?" + q.Encode()); err == nil {
		res.Body.Close()
	}
	for _, body := range []string{"not json", `{"a":`, strings.Repeat("x", 100<<10)} {
		if res, err := s.HTTP.Post(s.RewardsURL+"/api/GetReward", "application/json", strings.NewReader(body)); err == nil {
			res.Body.Close()
		}
	}
	rc := newReceiver(t, answerNotOK)
	registerChannel(t, s, "CIW", 0, rc.URL)
	schedule(t, s, map[string]any{"channel": "CIW", "offerId": "O1", "reason": "OUT_OF_STOCK", "retry": map[string]any{"kind": "none"}})
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/webhooks/run", nil)

	es, err := sim.JournalEntries(s.Sim)
	if err != nil || len(es) < 20 {
		t.Fatalf("journal: %d entries, %v", len(es), err)
	}
	if dump := os.Getenv("REWARDSIM_DUMP_ENTRIES"); dump != "" {
		raw, _ := json.Marshal(es)
		_ = os.WriteFile(dump, raw, 0o644)
	}
	for _, c := range []struct {
		name, query string
		entries     []journalpkg.Entry
	}{
		{"whole journal", "", es},
		{"the first 7", "&limit=7", es[:7]},
		{"after the 5th", "&after=" + strconv.FormatUint(es[4].Seq, 10), es[5:]},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := http.Get(s.ControlURL + "/__sim/recording?name=streamed" + c.query)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				t.Fatalf("export: HTTP %d %s", res.StatusCode, got)
			}
			want := recreplay.Build(c.entries, recreplay.BuildOptions{Name: "streamed", RecordedAt: c.entries[0].At})
			// What the recording was made against is the control plane's,
			// not Build's: taken from the export.
			var head struct{ Against *recfile.Against }
			if err := json.Unmarshal(got, &head); err != nil || head.Against == nil {
				t.Fatalf("export: %v %.300s", err, got)
			}
			want.Against = head.Against
			var buf bytes.Buffer
			if _, err := want.WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, buf.Bytes()) {
				t.Fatalf("the streamed export differs from Build's:\n%s", firstDifference(got, buf.Bytes()))
			}
			if !bytes.Contains(got, []byte(`"captures"`)) {
				t.Fatalf("no step captures anything: the comparison proves little\n%.2000s", got)
			}
		})
	}
}

// firstDifference shows both sides around the first byte they differ at.
func firstDifference(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-300)
	return "--- streamed\n" + string(got[from:min(len(got), i+300)]) + "\n--- Build\n" + string(want[from:min(len(want), i+300)])
}
