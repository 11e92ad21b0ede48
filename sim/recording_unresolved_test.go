package sim_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/recordings"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: SIM-4
// A slice exported by virtualId leaves out the reference token's fetch
// (it names no user): the export says which step sends a token fetched
// outside it (replay would fail it silently); the channel's slice has it.
func TestExport_SIM4_saysWhenASliceUsesATokenFetchedOutsideIt(t *testing.T) {
	s := simtest.New(t)
	ctx := context.Background()
	ref, err := s.Client.ReferenceToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	amount := 100.0
	if _, _, err := s.Client.GetReward(ctx, ref.ReferenceKey, publisher.GetRewardRequest{ChannelName: "DEMOBANK", VirtualID: "VU-1", TriggerEventType: "UPI",
		ExtTransactionID: "TX-U", Amount: &amount, DateAndTime: "15012026100000"}); err != nil {
		t.Fatal(err)
	}
	export := func(q string) []string {
		res, err := http.Get(s.ControlURL + "/__sim/recording?name=x&" + q)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		warn, err := recordings.Unresolved(data)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return warn
	}
	if w := export("virtualId=VU-1"); len(w) != 1 || !strings.Contains(w[0], "GetReward") || !strings.Contains(w[0], "fetched outside this slice") {
		t.Errorf("the user's slice: %q", w)
	}
	if w := export("channel=DEMOBANK"); len(w) != 0 {
		t.Errorf("the channel's slice: %q", w)
	}
}
