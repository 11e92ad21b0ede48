package sim_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/simtest"
)

// Issue 42 item 4: a credential the simulator issued and the app echoes
// back (in a query such as ?access_token=, a header, a body field at any
// depth, additionalParams) is in no artefact in clear: every artefact
// reads the journal through one masking path. Each issued credential is
// echoed in every place, then every artefact is read and searched: the
// journal, the recording, the report (JSON and HTML), the dashboard, the
// diagram, the live stream, the request log and the metrics.
func TestEveryArtefact_masksEchoedCredentials(t *testing.T) {
	logs := &lockedBuffer{}
	e := newCardEnv(t, simtest.WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	const vid = "echo-user"
	// The live stream, watched before the calls.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.s.ControlURL+"/__sim/live", nil)
	liveRes, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer liveRes.Body.Close()
	live := make(chan string, 1)
	go func() {
		var b strings.Builder
		sc := bufio.NewScanner(liveRes.Body)
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
		}
		live <- b.String()
	}()

	e.issue(vid, "UPI")
	secrets := map[string]string{
		"reference key": e.ref, "user token": e.userToken(vid), "sessionId": e.session(vid),
	}
	for name, secret := range secrets {
		body := map[string]any{
			"channelName": "DEMOBANK", "virtualId": vid, "triggerEventType": "UPI", "extTransactionId": "ECHO-" + name,
			"amount": 1.5, "dateandtime": "15012026100000",
			"additionalParams": map[string]string{"echo": secret},
			"app":              map[string]any{"deep": []any{map[string]string{"userCredential": secret}}},
		}
		raw, _ := json.Marshal(body)
		r, _ := http.NewRequest(http.MethodPost, e.s.RewardsURL+"/api/GetReward?access_token="+url.QueryEscape(secret), strings.NewReader(string(raw)))
		r.Header.Set("Authorization", "Bearer "+e.ref)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-App-Echo", secret)
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	ctlOK(t, e.s, http.StatusOK, "POST", "/__sim/verify", map[string]any{"channel": "DEMOBANK"}) // the journal is written
	artefacts := map[string]string{}
	for _, path := range []string{"/__sim/journal?limit=1000", "/__sim/recording", "/__sim/report", "/__sim/report.html",
		"/__sim/dashboard", "/__sim/diagram.svg", "/__sim/metrics"} {
		st, page := ctl(t, e.s, http.MethodGet, path, nil)
		if st != http.StatusOK {
			t.Fatalf("%s: HTTP %d %s", path, st, page)
		}
		artefacts[path] = string(page)
	}
	// Each place was echoed and kept (masked) where a request is kept whole.
	for _, path := range []string{"/__sim/journal?limit=1000", "/__sim/recording"} {
		for _, place := range []string{"access_token=", "X-App-Echo", "userCredential", `"echo"`} {
			if !strings.Contains(artefacts[path], place) {
				t.Errorf("%s has no %s: the echo was not recorded", path, place)
			}
		}
	}
	time.Sleep(100 * time.Millisecond)
	cancel()
	artefacts["live stream"] = <-live
	artefacts["request log"] = logs.String()
	for where, text := range artefacts {
		for name, secret := range secrets {
			if i := strings.Index(text, secret); i >= 0 {
				t.Errorf("%s holds the %s in clear: …%s…", where, name, text[max(0, i-120):min(len(text), i+len(secret)+20)])
			}
		}
	}
}
