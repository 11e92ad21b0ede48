package sim_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/rewardsim/rewardsim/sim/simtest"
)

// BenchmarkSession_withControlFaults measures GenerateSessionInfoV2 through
// the real HTTP stack with 0 and 20 armed (non-matching) control-API
// fault rules: the cost of consulting them on every signed call.
func BenchmarkSession_withControlFaults(b *testing.B) {
	for _, n := range []int{0, 20} {
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			s := simtest.New(b)
			for i := range n {
				ctlOK(b, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{
					"endpoint": "GenerateSessionInfoV2", "virtualId": fmt.Sprintf("nobody-%d", i), "action": map[string]any{"kind": "internal-error"},
				})
			}
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := s.Client.Session(bg, "VU-1"); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkWebhook_scheduleAndDeliver measures POST /__sim/webhooks with an
// immediate delivery to a loopback receiver that answers {"status":"OK"},
// waiting for the attempt (?wait) as the call once did by default.
func BenchmarkWebhook_scheduleAndDeliver(b *testing.B) {
	s := simtest.New(b)
	rc := newReceiver(b, answerOK)
	registerChannel(b, s, "CIW", 0, rc.URL)
	b.ResetTimer()
	for range b.N {
		ctlOK(b, s, http.StatusCreated, "POST", "/__sim/webhooks?wait=10s", map[string]any{"channel": "CIW", "offerId": "O1", "reason": "OUT_OF_STOCK"})
	}
}
