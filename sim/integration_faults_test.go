package sim_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// addFault arms a one-shot control-API rule for endpoint and virtualID.
func addFault(t *testing.T, e *cardEnv, endpoint, vid string, action map[string]any) {
	t.Helper()
	ctlOK(t, e.s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{
		"endpoint": endpoint, "virtualId": vid, "times": 1, "action": action,
	})
}

// clause: SIM-3, GR-3
// Control-API fault rules reach the scratch-card endpoints, each in its
// own answer shape, and fire once: the next call is served normally.
func TestCardEndpointFaults_SIM3(t *testing.T) {
	t.Run("GetReward internal-error", func(t *testing.T) {
		e := newCardEnv(t)
		addFault(t, e, "GetReward", "VU-F", map[string]any{"kind": "internal-error"})
		res, _, _ := e.s.Client.GetReward(e.ctx, e.ref, e.req("VU-F", "UPI"))
		var ans publisher.GetRewardAnswer
		if res.StatusCode != 500 || json.Unmarshal(res.Body, &ans) != nil || ans.Status || ans.Message != "Internal Error" {
			t.Fatalf("HTTP %d %s, want 500 with GetReward's shape", res.StatusCode, res.Body)
		}
		e.issue("VU-F", "UPI") // one-shot: the next call is served
	})
	t.Run("GetReward not-eligible creates no card", func(t *testing.T) {
		e := newCardEnv(t)
		addFault(t, e, "GetReward", "VU-F", map[string]any{"kind": "not-eligible"})
		res, ans := e.getReward(e.req("VU-F", "UPI"))
		if res.StatusCode != 200 || ans.Status || ans.Message != "failure" || len(ans.Rewards) != 0 {
			t.Fatalf("HTTP %d %s, want the normal not-eligible answer", res.StatusCode, res.Body)
		}
		_, list, err := e.s.Client.ListCards(e.ctx, e.userToken("VU-F"), "")
		if err != nil || list.Total != 0 {
			t.Fatalf("cards after an injected not-eligible: %+v %v", list, err)
		}
	})
	t.Run("GetReward malformed-body", func(t *testing.T) {
		e := newCardEnv(t)
		addFault(t, e, "GetReward", "VU-F", map[string]any{"kind": "malformed-body"})
		res, _, _ := e.s.Client.GetReward(e.ctx, e.ref, e.req("VU-F", "UPI"))
		if json.Valid(res.Body) || res.StatusCode != 200 {
			t.Fatalf("HTTP %d %s, want a body cut mid-JSON", res.StatusCode, res.Body)
		}
	})
	t.Run("FetchRewardInfo internal-error leaves the card unscratched", func(t *testing.T) {
		e := newCardEnv(t)
		id := e.issue("VU-F", "UPI")
		tok := e.userToken("VU-F")
		addFault(t, e, "FetchRewardInfo", "VU-F", map[string]any{"kind": "internal-error"})
		if _, _, err := e.reveal(tok, "VU-F", id); !publisher.IsFailure(err, "Internal Error!") {
			t.Fatalf("reveal: %v, want Internal Error!", err)
		}
		if _, rw, err := e.reveal(tok, "VU-F", id); err != nil || rw.OfferTitle == "" {
			t.Fatalf("first real reveal after the fault: %+v %v", rw, err)
		}
	})
	t.Run("listing http-status", func(t *testing.T) {
		e := newCardEnv(t)
		addFault(t, e, "GetAllScratchCardsByUserId", "VU-F", map[string]any{"kind": "http-status", "status": 503})
		res, _, _ := e.s.Client.ListCards(e.ctx, e.userToken("VU-F"), "")
		if res.StatusCode != 503 {
			t.Fatalf("HTTP %d %s, want 503", res.StatusCode, res.Body)
		}
	})
	t.Run("GetScratchCardForBank not-eligible", func(t *testing.T) {
		e := newCardEnv(t)
		addFault(t, e, "GetScratchCardForBank", "VU-F", map[string]any{"kind": "not-eligible"})
		res, card, err := e.s.Client.BankCard(e.ctx, bankReq("VU-F", "EXT-1"))
		if err != nil || card.Status || card.Message != "failure" || card.DeepLink != "" || res.Envelope == nil {
			t.Fatalf("answer %s (%v), want the signed not-eligible answer", res.Body, err)
		}
	})
}

// clause: SIM-3, CPN-3
// coupon-error and not-eligible rules answer the coupon host's error codes
// in the words the real outcome uses (the app shows the same text for an
// injected exhaustion as for a real one), or the rule's own message;
// X-Rewardsim-Reason says it was injected.
func TestCouponFaultKinds_SIM3(t *testing.T) {
	e := newCardEnv(t)
	for _, c := range []struct {
		action        map[string]any
		code, message string
		status        int
	}{
		{map[string]any{"kind": "coupon-error", "errorCode": "COUPON_EXHAUSTED"}, "COUPON_EXHAUSTED", "offer OFFER-DEMO has no coupons left", 409},
		{map[string]any{"kind": "coupon-error", "errorCode": "MAX_LIMIT_REACHED"}, "MAX_LIMIT_REACHED", `virtualId "VU-C" reached the purchase_limit of offer OFFER-DEMO`, 429},
		{map[string]any{"kind": "not-eligible"}, "NON_ELIGIBLE", `offer OFFER-DEMO's targeting excludes virtualId "VU-C"`, 403},
		{map[string]any{"kind": "coupon-error", "errorCode": "COUPON_EXHAUSTED", "message": "Sold out!"}, "COUPON_EXHAUSTED", "Sold out!", 409},
	} {
		addFault(t, e, "fetchCouponCode", "VU-C", c.action)
		res, err := e.s.Client.PostAPIKey(bg, "/api/fetchCouponCode", publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-C", ChannelName: "DEMOBANK", ExtTransactionID: "T-" + c.code, CoinsUsed: "100"})
		var ce publisher.CouponError
		if err != nil || json.Unmarshal(res.Body, &ce) != nil || ce.ErrorCode != c.code || ce.Status != c.status || ce.Message != c.message ||
			!strings.HasPrefix(res.Header.Get("X-Rewardsim-Reason"), "injected fault: "+c.action["kind"].(string)) {
			t.Errorf("%v: got %v %s (reason %q), want %d %s %q", c.action, err, res.Body, res.Header.Get("X-Rewardsim-Reason"), c.status, c.code, c.message)
		}
	}
}

// clause: SIM-3, SDK-1
// Fault rules reach the SDK client issuance too, in its answer shape.
func TestSDKIssueFaults_SIM3(t *testing.T) {
	e := newCardEnv(t)
	addFault(t, e, "getScratchCardDetails", "sdk-user", map[string]any{"kind": "not-eligible"})
	if code, ans := e.sdkIssue("/sdk/getScratchCardDetails", sdkReq("F1")); code != 200 || ans.Status || ans.Message != "failure" || ans.DeepLink != "" {
		t.Fatalf("injected not-eligible: HTTP %d %+v", code, ans)
	}
	addFault(t, e, "sendRewardCardRequest", "sdk-user", map[string]any{"kind": "internal-error"})
	if code, ans := e.sdkIssue("/sdk/sendRewardCardRequest", sdkReq("F2")); code != 500 || ans.Status || ans.Message != "Internal Error" {
		t.Fatalf("injected internal-error: HTTP %d %+v", code, ans)
	}
	if code, ans := e.sdkIssue("/sdk/getScratchCardDetails", sdkReq("F3")); code != 200 || !ans.Status {
		t.Fatalf("after the one-shot rules: HTTP %d %+v", code, ans)
	}
}

// clause: SIM-4
// A client that gives up during an injected delay is not a simulator
// failure: the journal records 499 (client closed), never a 5xx.
func TestFaults_SIM4_clientGoneDuringDelayIsNot5xx(t *testing.T) {
	s := simtest.New(t)
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{
		"endpoint": "GenerateSessionInfoV2", "times": 1, "action": map[string]any{"kind": "delay", "delay": "5s"}})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := s.Client.Session(ctx, "VU-1"); err == nil {
		t.Fatal("the delayed call answered before the client's timeout")
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		p := journal(t, s, "endpoint=GenerateSessionInfoV2")
		if len(p.Entries) == 1 {
			if st := p.Entries[0].Status; st != 499 {
				t.Fatalf("journaled status %d, want 499", st)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the abandoned call was never journaled")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
