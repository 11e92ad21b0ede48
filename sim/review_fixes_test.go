package sim_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: GR-4, BANK-3, SDK-1
// Idempotency is per extTransactionId, but a replay by another user never
// hands them the first user's cards (nor, once revealed, its coupon code):
// it is refused as bad input in each endpoint's shape.
func TestReplayByAnotherUserIsRefused_GR4(t *testing.T) {
	e := newCardEnv(t)
	first := e.getRewardBody(t, "VU-A", "SHARED-1")
	if !first.Status {
		t.Fatal("first GetReward not eligible")
	}
	res, _, _ := e.s.Client.GetReward(e.ctx, e.ref, map[string]any{
		"channelName": "DEMOBANK", "virtualId": "VU-B", "triggerEventType": "UPI",
		"extTransactionId": "SHARED-1", "amount": 250.5, "dateandtime": "15012026100000",
	})
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(res.Body), "first used by another user") || strings.Contains(string(res.Body), `"rewardId"`) {
		t.Fatalf("GetReward replay by another user: HTTP %d %s", res.StatusCode, res.Body)
	}

	if _, _, err := e.s.Client.BankCard(e.ctx, bankReq("VU-A", "SHARED-2")); err != nil {
		t.Fatal(err)
	}
	_, _, err := e.s.Client.BankCard(e.ctx, bankReq("VU-B", "SHARED-2"))
	var fe *publisher.FailureError
	if !errorsAs(err, &fe) || !strings.Contains(fe.ERRORSTRING, "first used by another user") {
		t.Fatalf("GetScratchCardForBank replay by another user: %v", err)
	}

	req := sdkReq("SHARED3")
	if code, ans := e.sdkIssue("/sdk/getScratchCardDetails", req); code != 200 || !ans.Status {
		t.Fatalf("first SDK issuance: HTTP %d %+v", code, ans)
	}
	req["virtualId"] = "someone-else"
	if code, ans := e.sdkIssue("/sdk/getScratchCardDetails", req); code != http.StatusBadRequest || ans.DeepLink != "" {
		t.Fatalf("SDK replay by another user: HTTP %d %+v", code, ans)
	}
}

// getRewardBody issues one card for vid with extTransactionId tx.
func (e *cardEnv) getRewardBody(t *testing.T, vid, tx string) publisher.GetRewardAnswer {
	t.Helper()
	_, ans := e.getReward(map[string]any{
		"channelName": "DEMOBANK", "virtualId": vid, "triggerEventType": "UPI",
		"extTransactionId": tx, "amount": 250.5, "dateandtime": "15012026100000",
	})
	return ans
}

// clause: SDK-1, ENV-6
// Bad input found by review: an over-long virtualId on SDK issuance (it
// once reached the store and failed with a 500), an oversized launch form,
// and an oversized FetchRewardInfo body all answer 4xx in their shapes.
func TestOversizedInputsAreRefused_ENV6(t *testing.T) {
	e := newCardEnv(t)
	req := sdkReq("LONG1")
	req["virtualId"] = strings.Repeat("v", 40000)
	if code, ans := e.sdkIssue("/sdk/getScratchCardDetails", req); code != http.StatusBadRequest || !strings.Contains(ans.Message, "virtualId") {
		t.Fatalf("40,000-character virtualId: HTTP %d %+v", code, ans)
	}

	form := url.Values{"virtualId": {"v"}, "sessionId": {"s"}, "payload": {strings.Repeat("x", 2<<20)}}
	res, err := http.Post(e.s.BankURL+"/sdk/launch", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode >= 500 {
		t.Fatalf("2 MiB launch form: HTTP %d", res.StatusCode)
	}

	big := bytes.Repeat([]byte("A"), 2<<20)
	r, err := e.s.Client.Do(e.ctx, http.MethodPost, e.s.RewardsURL+"/api/FetchRewardInfo",
		http.Header{"Authorization": {"Bearer " + e.userToken("VU-1")}}, append(append([]byte(`{"CHANNELID":"DEMOBANK","BDATA":"`), big...), '"', '}'))
	if err != nil {
		t.Fatal(err)
	}
	if r.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(r.Body), "larger than 1 MiB") {
		t.Fatalf("2 MiB FetchRewardInfo body: HTTP %d %s", r.StatusCode, r.Body)
	}
}

// clause: SIM-4
// A client that gives up during an injected delay is not a simulator
// failure: the journal records 499 (client closed), never a 5xx.
func TestClientGoneDuringDelayIsNot5xx_SIM4(t *testing.T) {
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

// clause: SESS-3
// Generated imagery is deterministic: only the last "-kind" is the kind.
func TestImageKindIsTheLastSuffix_SESS3(t *testing.T) {
	s := simtest.New(t)
	var first string
	for i := 0; i < 20; i++ {
		st, ct, body := get(t, s.BankURL+"/assets/img/x-icon-banner.svg")
		if st != 200 || !strings.HasPrefix(ct, "image/svg+xml") || !strings.Contains(body, `width="1200"`) {
			t.Fatalf("HTTP %d %s: want the 1200-wide banner kind", st, ct)
		}
		if i == 0 {
			first = body
		} else if body != first {
			t.Fatal("the same image name drew different images")
		}
	}
}
