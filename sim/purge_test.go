package sim_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/internal/state"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// Issue 11 item 4: tokens expired longer than the retention are swept in
// the background on the simulated clock; within it they still read as
// expired; the store's token count stays bounded across rounds of
// traffic.
func TestStatePurge_expiredTokensGoAfterRetention(t *testing.T) {
	dir := t.TempDir()
	s := simtest.New(t, simtest.WithDataDir(dir), simtest.WithState(sim.StateOptions{Retention: 24 * time.Hour, PurgeTick: 5 * time.Millisecond}))
	tokens := func(user string) []any {
		m := ctlOK(t, s, http.StatusOK, "GET", "/__sim/state/users/DEMOBANK/"+user, nil)
		ts, _ := m["tokens"].([]any)
		return ts
	}
	const users, rounds = 20, 3
	for round := range rounds {
		for u := range users {
			issueTokens(t, s, "VU-"+string(rune('a'+u)))
		}
		// Past the tokens' lifetime but within the retention: kept, and
		// read as expired. The purge runs every 5ms; give it many ticks.
		advance(t, s, "2h")
		time.Sleep(100 * time.Millisecond)
		ts := tokens("VU-a")
		if len(ts) == 0 {
			t.Fatalf("round %d: a token expired 1h ago was swept within the 24h retention", round)
		}
		for _, tok := range ts {
			if tok.(map[string]any)["expired"] != true {
				t.Fatalf("round %d: token after 2h: %v", round, tok)
			}
		}
		// Past the retention: every token of the round goes.
		advance(t, s, "24h")
		deadline := time.Now().Add(20 * time.Second)
		for len(tokens("VU-a"))+len(tokens("VU-t")) > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: tokens still kept 24h past their expiry: %v", round, tokens("VU-a"))
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	s.Close()
	st, err := state.Open(dir, state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	nt, _, err := st.TokenSessionCounts()
	if err != nil {
		t.Fatal(err)
	}
	// Each round issued 2 tokens a user plus the reference tokens the
	// harness's client fetched; all of them expired past the retention.
	if nt != 0 {
		t.Fatalf("after %d rounds the store holds %d tokens, want 0", rounds, nt)
	}
}
