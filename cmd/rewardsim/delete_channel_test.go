package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// Issue 42, item 5: deleting a channel deletes everything keyed by it
// (its fault rules, pending pushes, own clock, journal entries unless
// ?keepJournal=true), so a channel made again under the name inherits
// nothing: the old channel's push, due later, never reaches the new
// owner's webhook URL, even after a restart.
func TestServe_deletedChannelLeavesNothingBehind(t *testing.T) {
	bin := issue20Binary(t)
	data := t.TempDir()
	cmd, urls := startServe(t, bin, data)
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	control := urls["control"]
	var oldHits, newHits atomic.Int32
	hook := func(n *atomic.Int32) string {
		rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			_, _ = w.Write([]byte(`{"status":"OK"}`))
		}))
		t.Cleanup(rc.Close)
		return rc.URL + "/hook"
	}
	call := func(method, path string, body any, want int) []byte {
		t.Helper()
		st, out, _ := ctlCall(t, control, method, path, body)
		if st != want {
			t.Fatalf("%s %s: HTTP %d %s, want %d", method, path, st, out, want)
		}
		return out
	}
	registerWebhookChannel(t, control, "TEAM", hook(&oldHits))
	call("POST", "/__sim/faults", map[string]any{"endpoint": "getSecuredReferenceToken", "channel": "TEAM", "action": map[string]any{"kind": "internal-error"}}, http.StatusCreated)
	call("POST", "/__sim/clock", map[string]any{"channel": "TEAM", "mode": "offset", "time": "2030-01-01T00:00:00Z"}, http.StatusOK)
	call("POST", "/__sim/webhooks", map[string]any{"channel": "TEAM", "offerId": "O1", "reason": "OUT_OF_STOCK", "at": "2030-01-01T06:00:00Z"}, http.StatusCreated)
	signedCall(t, urls["all"])
	if out := call("GET", "/__sim/journal?channel=TEAM", nil, http.StatusOK); !strings.Contains(string(out), `"seq"`) {
		t.Fatalf("the setup left no journal entry of TEAM: %s", out)
	}

	call("DELETE", "/__sim/channels/TEAM?keepJournal=maybe", nil, http.StatusBadRequest)
	call("DELETE", "/__sim/channels/TEAM", nil, http.StatusNoContent)
	registerWebhookChannel(t, control, "TEAM", hook(&newHits))
	check := func(when string) {
		t.Helper()
		if out := call("GET", "/__sim/faults", nil, http.StatusOK); strings.Contains(string(out), "TEAM") {
			t.Errorf("%s: the old channel's fault rule lives on: %s", when, out)
		}
		if out := call("GET", "/__sim/webhooks?channel=TEAM", nil, http.StatusOK); strings.Contains(string(out), "O1") {
			t.Errorf("%s: the old channel's push lives on: %s", when, out)
		}
		var own, global struct{ Now time.Time }
		_ = json.Unmarshal(call("GET", "/__sim/clock?channel=TEAM", nil, http.StatusOK), &own)
		_ = json.Unmarshal(call("GET", "/__sim/clock", nil, http.StatusOK), &global)
		if own.Now.Year() == 2030 {
			t.Errorf("%s: the old channel's clock lives on: %v", when, own.Now)
		}
		if out := call("GET", "/__sim/journal?channel=TEAM", nil, http.StatusOK); strings.Contains(string(out), "getSecuredReferenceToken") {
			t.Errorf("%s: the old channel's journal entries live on: %.300s", when, out)
		}
	}
	check("after the delete")
	call("POST", "/__sim/clock", map[string]any{"channel": "TEAM", "mode": "offset", "time": "2030-01-02T00:00:00Z"}, http.StatusOK)
	call("POST", "/__sim/webhooks/run", map[string]any{}, http.StatusOK)
	time.Sleep(300 * time.Millisecond)
	if oldHits.Load() != 0 || newHits.Load() != 0 {
		t.Errorf("the old channel's push was delivered: %d to the old URL, %d to the new owner's", oldHits.Load(), newHits.Load())
	}

	// ?keepJournal=true keeps the entries (the new channel's, here).
	call("POST", "/__sim/faults", map[string]any{"endpoint": "getSecuredReferenceToken", "channel": "TEAM", "action": map[string]any{"kind": "internal-error"}}, http.StatusCreated)
	signedCall(t, urls["all"])
	call("DELETE", "/__sim/channels/TEAM?keepJournal=true", nil, http.StatusNoContent)
	if out := call("GET", "/__sim/journal?channel=TEAM", nil, http.StatusOK); !strings.Contains(string(out), "getSecuredReferenceToken") {
		t.Errorf("keepJournal=true dropped the journal entries: %.300s", out)
	}
	registerWebhookChannel(t, control, "TEAM", hook(&newHits))
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	cmd, urls = startServe(t, bin, data)
	control = urls["control"]
	if out := call("GET", "/__sim/faults", nil, http.StatusOK); strings.Contains(string(out), "TEAM") {
		t.Errorf("after a restart: the old channel's fault rule lives on: %s", out)
	}
}

// signedCall makes one signed call of channel TEAM (made by
// registerWebhookChannel with the development certificate), which the
// journal files under TEAM.
func signedCall(t *testing.T, base string) {
	t.Helper()
	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	key, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	c := &publisher.Client{HTTP: http.DefaultClient, RewardsURL: base, BankURL: base, HotdealsURL: base,
		ChannelID: "TEAM-ID", Channel: "TEAM", Key: key}
	_, _ = c.ReferenceToken(context.Background())
}
