package sim_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// lockedBuffer is a log sink shared by the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A panic inside a group-committed store transaction (made by the
// test-only TxHook) is its own request's platform failure in its
// endpoint's shape, logged with its stack: the simulator keeps serving,
// and the same call then succeeds.
func TestPanicInATransaction_isOneRequestsFailure(t *testing.T) {
	var armed atomic.Bool
	hook := func() {
		if armed.CompareAndSwap(true, false) {
			panic("test hook: boom")
		}
	}
	logs := &lockedBuffer{}
	s := simtest.New(t, simtest.WithState(sim.StateOptions{TxHook: hook}),
		simtest.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	c := *s.Client
	c.HTTP = &http.Client{} // the harness's client fails a test on any 5xx
	ref, err := c.ReferenceToken(bg)
	if err != nil {
		t.Fatal(err)
	}
	getReward := func() error {
		res, ans, err := c.GetReward(bg, ref.ReferenceKey, map[string]any{
			"channelName": "DEMOBANK", "virtualId": "VU-P", "triggerEventType": "UPI",
			"extTransactionId": "TXP1", "amount": 250.5, "dateandtime": "15012026100000",
		})
		if err == nil && res.StatusCode != http.StatusOK {
			err = fmt.Errorf("HTTP %d %s", res.StatusCode, res.Body)
		}
		if err == nil && !ans.Status {
			err = fmt.Errorf("not eligible: %+v", ans)
		}
		return err
	}
	claim := func() error {
		_, err := c.FetchCouponCode(bg, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-P", ChannelName: "DEMOBANK", ExtTransactionID: "TXP2", CoinsUsed: "100"})
		return err
	}
	for _, tc := range []struct {
		name string
		call func() error
		want string // a part of the failed call's error: its shape
	}{
		{"GetAuthToken", func() error { _, err := c.UserToken(bg, "VU-P"); return err }, "FAILURE: Internal Error! (HTTP 500)"},
		{"GenerateSessionInfoV2", func() error { _, err := c.Session(bg, "VU-P"); return err }, "FAILURE: Internal Error! (HTTP 500)"},
		{"GetReward", getReward, `HTTP 500 {"status":false,"message":"Internal Error"`},
		{"fetchCouponCode", claim, "INTERNAL_ERROR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			armed.Store(true)
			if err := tc.call(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("the call whose transaction panicked: %v, want its failure (%s)", err, tc.want)
			}
			if armed.Load() {
				t.Fatal("the hook did not fire: no transaction ran")
			}
			if err := tc.call(); err != nil {
				t.Fatalf("the same call next: %v", err)
			}
		})
	}
	if got := logs.String(); !strings.Contains(got, "panic in a store transaction") || !strings.Contains(got, "test hook: boom") || !strings.Contains(got, "panic_test.go") {
		t.Errorf("the log does not tell the panic with its stack:\n%s", got)
	}
}
