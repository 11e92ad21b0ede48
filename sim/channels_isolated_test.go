package sim_test

import (
	"net/http"
	"testing"

	"github.com/rewardsim/rewardsim/sim/simtest"
)

// A copy made like a channel with "isolated": true gets fresh
// credentials, answered once; without it (and off a shared box) a copy
// keeps the original's, as before (issue 42, item 7).
func TestChannels_isolatedCopyGetsFreshCredentials(t *testing.T) {
	s := simtest.New(t)
	iso := ctlOK(t, s, http.StatusCreated, "POST", "/__sim/channels", map[string]any{"name": "ISO", "like": "DEMOBANK", "isolated": true})
	cr, _ := iso["credentials"].(map[string]any)
	if cr == nil || cr["appKey"] == "DEMOAPPKEY" || cr["secKey"] == "DEMOSECKEY" || cr["privateKey"] == "" || cr["certificate"] == "" {
		t.Fatalf("an isolated copy: %v, want fresh credentials", iso)
	}
	if iso["secKey"] != cr["secKey"] {
		t.Fatalf("the answer's secKey %v is not the copy's own %v", iso["secKey"], cr["secKey"])
	}
	// PATCH re-registers from the stored spec, which keeps only the secKey's hash.
	ctlOK(t, s, http.StatusOK, "PATCH", "/__sim/channels/ISO", map[string]any{"webhookUrl": "http://127.0.0.1:9/hook"})
	own := ctlOK(t, s, http.StatusCreated, "POST", "/__sim/channels", map[string]any{"name": "OWN", "like": "DEMOBANK", "isolated": true, "appKey": "A", "secKey": "S"})
	if cr, _ := own["credentials"].(map[string]any); cr == nil || cr["appKey"] != nil || cr["privateKey"] == nil {
		t.Fatalf("an isolated copy with its own appKey/secKey: %v, want a fresh key pair only", own)
	}
	st, out := ctl(t, s, "POST", "/__sim/channels", map[string]any{"name": "HALF", "like": "DEMOBANK", "isolated": true, "appKey": "A"})
	if st != http.StatusBadRequest {
		t.Fatalf("an isolated copy with an appKey alone: HTTP %d %s, want 400", st, out)
	}
	if plain := ctlOK(t, s, http.StatusCreated, "POST", "/__sim/channels", map[string]any{"name": "COPY", "like": "DEMOBANK"}); plain["credentials"] != nil {
		t.Fatalf("a plain copy off a shared box: %v, want the original's credentials, none shown", plain)
	}
}
