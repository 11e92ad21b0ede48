package simtest_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/rewardsim/rewardsim/sim/simtest"
)

// fatals is a testing.TB whose Fatalf is recorded and ends the calling
// goroutine, as the real one does.
type fatals struct {
	testing.TB
	mu   sync.Mutex
	msgs []string
}

func (f *fatals) Helper() {}
func (f *fatals) Fatalf(s string, a ...any) {
	f.mu.Lock()
	f.msgs = append(f.msgs, fmt.Sprintf(s, a...))
	f.mu.Unlock()
	runtime.Goexit()
}
func (f *fatals) Errorf(s string, a ...any) { f.Fatalf(s, a...) }

// clause: SIM-4
// A "never" on a channel that does not exist or on a misspelt field
// fails the test with the simulator's reason instead of passing (issue 39).
func TestVerify_SIM4_neverCannotPassByMistake(t *testing.T) {
	s := simtest.New(t)
	for _, tc := range []struct {
		name, channel string
		where         map[string]any
		says          string
	}{
		{"unknown channel", "NO-SUCH-CHANNEL", nil, `channel \"NO-SUCH-CHANNEL\" is not registered`},
		{"misspelt pointer", "DEMOBANK", map[string]any{"/extTransactionID": "T-1"}, "did you mean /extTransactionId?"},
		{"a field below a string", "DEMOBANK", map[string]any{"/offerId/x": "T-1"}, "nothing lies below /offerId"},
		{"not RE2", "DEMOBANK", map[string]any{"/offerId": simtest.Regex("(?=x)")}, "RE2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &fatals{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				s.Verify(rec, tc.channel, simtest.Verification{Endpoint: "fetchCouponCode", Where: tc.where, Count: simtest.Never()})
			}()
			<-done
			if len(rec.msgs) != 1 || !strings.Contains(rec.msgs[0], tc.says) {
				t.Fatalf("verify reported %q, want one failure saying %q", rec.msgs, tc.says)
			}
		})
	}
	// Free-form objects stay open, and a right pointer counts.
	s.Verify(t, "DEMOBANK", simtest.Verification{Endpoint: "GetReward", Where: map[string]any{"/additionalParams/anything": "x"}, Count: simtest.Never()})
	s.Verify(t, "DEMOBANK", simtest.Verification{Endpoint: "fetchCouponCode", Where: map[string]any{"/extTransactionId": "T-1"}, Count: simtest.Never()})
}
