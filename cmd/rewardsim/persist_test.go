package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// served is a rewardsim subprocess.
type served struct {
	cmd               *exec.Cmd
	publicURL, ctlURL string
}

func startBinary(t *testing.T, bin, data string, extra ...string) *served {
	t.Helper()
	args := append([]string{"serve", "--data", data, "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0", "--log-level", "error"}, extra...)
	cmd := boundedServe(t, bin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sv := &served{cmd: cmd}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	timeout := time.After(60 * time.Second)
	for sv.publicURL == "" || sv.ctlURL == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("rewardsim exited before listening")
			}
			if _, u, ok := strings.Cut(l, " listening on "); ok {
				if strings.HasPrefix(l, "rewardsim: control") {
					sv.ctlURL = u
				} else {
					sv.publicURL = u
				}
			}
		case <-timeout:
			t.Fatal("rewardsim did not print its addresses")
		}
	}
	go func() {
		for range lines { // drain
		}
	}()
	return sv
}

func (sv *served) ctl(t *testing.T, method, path string, body any) map[string]any {
	t.Helper()
	code, out := sv.call(t, method, path, body)
	if code >= 300 {
		t.Fatalf("%s %s: HTTP %d %s", method, path, code, out)
	}
	var m map[string]any
	_ = json.Unmarshal(out, &m)
	return m
}

// clause: SIM-2, WH-5, GR-4, REV-2, CPN-5
// The simulator is killed (SIGKILL) with tokens issued, a fault armed, a
// scenario activated, scratch cards issued (one revealed), a coupon
// claimed and a push pending; restarted on the same data folder, it
// still has all of them: the cards are listed as they were, a second
// reveal does not hand the reward out again (REV-2), duplicate GetReward
// and fetchCouponCode calls return the earlier cards and coupon (GR-4,
// CPN-5), the journal keeps the earlier exchanges, and the push is
// delivered exactly once when the simulated clock reaches it (WH-5). The
// push is scheduled with `rewardsim webhook send`.
func TestPersistence_SIM2_WH5_survivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := filepath.Join(t.TempDir(), "rewardsim")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data := t.TempDir()
	var mu sync.Mutex
	var deliveries []string
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		deliveries = append(deliveries, string(b))
		mu.Unlock()
		_, _ = w.Write([]byte(`{"status":"OK"}`))
	}))
	defer rc.Close()
	delivered := func() int { mu.Lock(); defer mu.Unlock(); return len(deliveries) }

	start := "2026-01-15T10:00:00+05:30"
	certPEM, _ := fs.ReadFile(certs.FS, certs.PublisherCert)
	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	key, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	client := func(sv *served) *publisher.Client {
		return &publisher.Client{HTTP: http.DefaultClient, RewardsURL: sv.publicURL, BankURL: sv.publicURL, HotdealsURL: sv.publicURL,
			ChannelID: "CIP-ID", Channel: "CIP", Key: key}
	}
	ctx := context.Background()

	sv := startBinary(t, bin, data)
	sv.ctl(t, "POST", "/__sim/clock", map[string]any{"mode": "frozen", "time": start})
	sv.ctl(t, "POST", "/__sim/channels", map[string]any{"name": "CIP", "channelId": "CIP-ID", "certificate": string(certPEM), "webhookUrl": rc.URL})
	sv.ctl(t, "POST", "/__sim/faults", map[string]any{"id": "sess", "endpoint": "GenerateSessionInfoV2", "channel": "CIP", "action": map[string]any{"kind": "internal-error"}})
	res, err := http.Post(sv.ctlURL+"/__sim/scenarios?activate=true&channel=CIP", "application/yaml", strings.NewReader(
		"version: 1\nname: second\nchannels: [{name: DEMOBANK, certificateFile: \"builtin:publisher-dev.crt\"}]\n"))
	if err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("upload scenario: %v %v", res, err)
	}
	res.Body.Close()
	tok, err := client(sv).UserToken(ctx, "VU-1")
	if err != nil {
		t.Fatal(err)
	}
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"webhook", "send", "--control", sv.ctlURL, "--channel", "CIP", "--offer", "OFFER-1",
		"--reason", "OUT_OF_STOCK", "--at", "2026-01-15T11:00:00+05:30"})
	if err := root.ExecuteContext(ctx); err != nil {
		t.Fatalf("webhook send: %v", err)
	}
	if !strings.Contains(out.String(), `"state": "pending"`) {
		t.Fatalf("webhook send printed %s", out.String())
	}

	before := persistCards(ctx, t, sv.demoClient(t, key), sv)

	if err := sv.cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = sv.cmd.Wait()
	sv = startBinary(t, bin, data)

	if c := sv.ctl(t, "GET", "/__sim/clock", nil); c["mode"] != "frozen" || !strings.HasPrefix(c["now"].(string), "2026-01-15T") {
		t.Errorf("clock after restart: %v", c)
	}
	if a := sv.ctl(t, "GET", "/__sim/scenarios/active?channel=CIP", nil); a["scenario"].(map[string]any)["name"] != "second" {
		t.Errorf("scenario of CIP after restart: %v", a)
	}
	m := sv.ctl(t, "GET", "/__sim/state/users/CIP/VU-1", nil)
	toks := m["tokens"].([]any)
	if len(toks) != 1 || toks[0].(map[string]any)["token"] != tok.Token || toks[0].(map[string]any)["expired"] != false {
		t.Errorf("tokens after restart: %v, want %s still valid", toks, tok.Token)
	}
	if _, err := client(sv).Session(ctx, "VU-1"); !publisher.IsFailure(err, "Internal Error!") {
		t.Errorf("the armed fault after restart: %v", err)
	}
	before.check(ctx, t, sv.demoClient(t, key), sv)
	if delivered() != 0 {
		t.Fatal("the push fired before its time")
	}
	// With ?wait the advance answers after the pushes it made due were
	// attempted (by it or by the background loop, whichever took them first).
	sv.ctl(t, "POST", "/__sim/clock/advance?wait=10s", map[string]any{"by": "1h"})
	if n := delivered(); n != 1 {
		t.Fatalf("after the clock reached the push: %d deliveries", n)
	}
	sv.ctl(t, "POST", "/__sim/clock/advance?wait=10s", map[string]any{"by": "24h"})
	sv.ctl(t, "POST", "/__sim/webhooks/run?wait=10s", nil)
	if n := delivered(); n != 1 {
		t.Errorf("delivered %d times, want once", n)
	}
	m = sv.ctl(t, "GET", "/__sim/state/users/CIP/VU-1", nil)
	if m["tokens"].([]any)[0].(map[string]any)["expired"] != true {
		t.Errorf("token after 25h: %v", m["tokens"])
	}
}
