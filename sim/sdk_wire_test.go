package sim_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/golden"
)

// Wire shapes of client issuance (2.7) and of the reveal callback payload,
// pinned as golden files (regenerate with go test ./sim/ -run SDKWireShapes -update).
//
// clause: SDK-1
// clause: SDK-3
func TestSDKWireShapes(t *testing.T) {
	e := sdkEnv(t, "")
	for _, tc := range []struct {
		name string
		body map[string]any
	}{
		{"issued", sdkReq("WIRE1")},
		{"popup", func() map[string]any { r := sdkReq("WIRE2"); r["amount"] = 2000; return r }()},
		{"not-eligible", func() map[string]any { r := sdkReq("WIRE3"); r["triggerEventType"] = "NEFT"; return r }()},
		{"bad-request", func() map[string]any { r := sdkReq("WIRE4"); delete(r, "merchantVPA"); return r }()},
	} {
		body := e.postRaw(e.s.BankURL+"/sdk/getScratchCardDetails", tc.body)
		golden.Check(t, "sdk/getScratchCardDetails."+tc.name+".json", bytes.ReplaceAll(body, []byte(e.s.BankURL), []byte("http://bank.test")))
	}
	id := e.issue("wire-user", "UPI")
	var ans struct{ Callback string }
	e.post(e.s.BankURL+"/microsite/scratch", map[string]any{"sessionId": e.session("wire-user"), "virtualId": "wire-user", "rewardId": id}, &ans)
	golden.Check(t, "sdk/reveal-callback.json", bytes.ReplaceAll([]byte(ans.Callback), []byte(e.s.BankURL), []byte("http://bank.test")))
}

// postRaw sends a JSON body and returns the answer's bytes (HTTP 200 or 400).
func (e *cardEnv) postRaw(u string, body any) []byte {
	e.t.Helper()
	res, out := e.postBytes(u, body)
	if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusBadRequest {
		e.t.Fatalf("HTTP %d: %s", res.StatusCode, out)
	}
	return out
}
