package replay

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/scenarios"
	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/recfile"
)

// clause: SIM-4
// A recording's copy of the scenario renames every channel (and nothing
// else), draws as the original, and is named the same for the same
// recording and run id; the recording's requests move to the new names,
// a validly signed envelope is re-signed and a bad signature stays bad.
func TestIsolate_SIM4_copyAndRewrite(t *testing.T) {
	yml, _ := fs.ReadFile(scenarios.FS, scenarios.Default)
	a, err := Isolate(yml, "flow", "")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Isolate(yml, "flow", "")
	c, _ := Isolate(yml, "flow", "job-2")
	fresh := a.Channels["DEMOBANK"]
	if !strings.HasPrefix(fresh, "RP") || !strings.HasSuffix(fresh, "-DEMOBANK") || b.Channels["DEMOBANK"] != fresh || c.Channels["DEMOBANK"] == fresh {
		t.Fatalf("names: %v, again %v, another run %v", a.Channels, b.Channels, c.Channels)
	}
	y := string(a.YAML)
	// The only value still naming DEMOBANK is drawAs (descriptions keep the word).
	if strings.Count(strings.ReplaceAll(y, fresh, ""), "DEMOBANK\n") != 1 || !strings.Contains(y, "drawAs: DEMOBANK\n") || !strings.Contains(y, "name: "+a.Scenario) {
		t.Errorf("copied scenario:\n%s", y)
	}

	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	key, _ := envelope.ParsePrivateKeyPEM(keyPEM)
	bdata := base64.StdEncoding.EncodeToString([]byte(`{"bName":"DEMOBANK"}`))
	good, _ := envelope.Sign(key, bdata)
	rec := &recfile.Recording{Version: recfile.Version, Name: "flow", Steps: []recfile.Step{
		{ID: "s1", Method: "POST", Path: "/api/x", Envelope: &recfile.Envelope{CHANNELID: "DEMOBANK", SIGN: good, BDATA: bdata, Payload: json.RawMessage(`{"bName":"DEMOBANK"}`)}},
		{ID: "s2", Method: "POST", Path: "/api/x", Envelope: &recfile.Envelope{CHANNELID: "DEMOBANK", SIGN: "AAAA", BDATA: bdata, Payload: json.RawMessage(`{"bName":"DEMOBANK"}`)}},
		{ID: "s3", Method: "POST", Path: "/api/fetchCouponCode", Header: map[string]string{"X-CHANNELID": "DEMOBANK"}, Body: json.RawMessage(`{"channelName":"DEMOBANK","note":"DEMOBANK rocks"}`)},
		{ID: "s4", Method: "GET", Path: "/hotdeals/r/DEMOBANK/OFFER-DEMO", Query: "channel=DEMOBANK&vid=VU-1"},
	}}
	if err := a.Rewrite(rec, key); err != nil {
		t.Fatal(err)
	}
	s1, s2, s3, s4 := rec.Steps[0], rec.Steps[1], rec.Steps[2], rec.Steps[3]
	if s1.Envelope.CHANNELID != fresh || envelope.Verify(&key.PublicKey, s1.Envelope.BDATA, s1.Envelope.SIGN) != nil || !strings.Contains(string(s1.Envelope.Payload), fresh) {
		t.Errorf("signed step: %+v", s1.Envelope)
	}
	if s2.Envelope.SIGN != "AAAA" {
		t.Errorf("a bad signature was repaired: %+v", s2.Envelope)
	}
	if s3.Header["X-CHANNELID"] != fresh || !strings.Contains(string(s3.Body), `"channelName":"`+fresh+`"`) || !strings.Contains(string(s3.Body), `"DEMOBANK rocks"`) {
		t.Errorf("plain step: %v %s", s3.Header, s3.Body)
	}
	if s4.Path != "/hotdeals/r/"+fresh+"/OFFER-DEMO" || s4.Query != "channel="+fresh+"&vid=VU-1" {
		t.Errorf("URL step: %s?%s", s4.Path, s4.Query)
	}
	if n := a.AnswerNames(); len(n) == 0 || n[0][0] != fresh || n[0][1] != "DEMOBANK" {
		t.Errorf("answer names %v", n)
	}
}

// clause: SIM-4
// A step whose answer is late (an injected delay) is reported while it
// waits, and every step is reported once compared.
func TestReplay_SIM4_reportsWaitingAndSteps(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		fmt.Fprint(w, `{}`)
	}))
	t.Cleanup(srv.Close)
	defer func(d time.Duration) { WaitNotice = d }(WaitNotice)
	WaitNotice = 5 * time.Millisecond
	var mu sync.Mutex
	waited, steps := 0, 0
	tg, _ := ParseTargets(srv.URL)
	s := &recfile.Recording{Version: recfile.Version, Name: "slow", Steps: []recfile.Step{{ID: "s1", Method: "POST", Path: "/slow", Body: json.RawMessage(`{}`), Expect: recfile.Expect{Status: 200, Body: json.RawMessage(`{}`)}}}}
	o := ResendOptions{
		Waiting: func(st *recfile.Step, d time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			if waited++; waited == 3 {
				close(release) // answer once the wait was reported a few times
			}
		},
		Step: func(r StepReport) { steps++ },
	}
	res, err := Resend(context.Background(), s, tg, o)
	if err != nil || !res.OK() || steps != 1 {
		t.Fatalf("replay: %v %+v, %d step reports", err, res, steps)
	}
	mu.Lock()
	defer mu.Unlock()
	if waited < 3 {
		t.Errorf("waiting reported %d times", waited)
	}
}
