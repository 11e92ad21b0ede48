package sim_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/recordings"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// Issue 11 item 7: a recording export holds no sessionId in clear, not in
// the /microsite and /sdk/launch queries and forms nor in the pages they
// answer; replay captures the sessionId from the live GenerateSessionInfoV2
// answer, and compares the pages masked, so the export still replays clean.
func TestRecording_exportMasksSessionIDsInQueriesAndPages(t *testing.T) {
	rec := simtest.New(t)
	ctx := context.Background()
	sess, err := rec.Client.Session(ctx, "VU-MS")
	if err != nil {
		t.Fatal(err)
	}
	get := func(u string) string {
		res, err := rec.HTTP.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		page, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: HTTP %d %s", u, res.StatusCode, page)
		}
		return string(page)
	}
	q := url.Values{"sessionId": {sess.SessionID}, "virtualId": {"VU-MS"}}
	page := get(rec.BankURL + "/microsite?" + q.Encode())
	q.Set("channel", "DEMOBANK")
	launch := get(rec.BankURL + "/sdk/launch?" + q.Encode())
	res, err := rec.HTTP.PostForm(rec.BankURL+"/sdk/launch", q)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if !strings.Contains(page+launch, sess.SessionID) {
		t.Fatal("the pages do not show the sessionId: the test proves nothing")
	}

	data := exportSession(t, rec, "microsite")
	if strings.Contains(string(data), sess.SessionID) {
		i := strings.Index(string(data), sess.SessionID)
		t.Fatalf("the export holds the sessionId in clear: …%s…", data[max(0, i-200):min(len(data), i+100)])
	}
	if res := replay(t, simtest.New(t), data, recordings.ReplayOptions{}); !res.OK() {
		t.Fatalf("replay of the masked export:\n%s", res.Report)
	}
}
