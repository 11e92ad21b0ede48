package sim_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/golden"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

func bankReq(vid, ext string) publisher.BankCardRequest {
	return publisher.BankCardRequest{
		VirtualID: vid, TransDateAndTime: "2026-01-15 09:59:00", Amount: "500.00", MCC: "5411",
		ExtTransactionID: ext, CampaignID: "CAMP-DEMO", DeviceToken: "device-" + vid,
	}
}

// clause: BANK-1
func TestBankCard_BANK1_signedIssueAndNotification(t *testing.T) {
	e := newCardEnv(t) // default scenario: CAMP-DEMO
	res, ans, err := e.s.Client.BankCard(e.ctx, bankReq("VU-1", "ORDER-1"))
	if err != nil || res.Envelope == nil || res.Envelope.SIGN == "" {
		t.Fatalf("GetScratchCardForBank: %v %s", err, res.Body)
	}
	if !ans.Status || ans.Message != "success" || !strings.HasPrefix(ans.DeepLink, "rewardsim://scratchcard?") || ans.Banner == "" {
		t.Errorf("answer %+v", ans)
	}
	golden.Check(t, "cards/GetScratchCardForBank.issued.json", bytes.ReplaceAll(res.BDATA, []byte(e.s.BankURL), []byte("http://bank.test")))
	u, _ := url.Parse(ans.DeepLink)
	id := u.Query().Get("rewardId")
	// The card is a normal card of the user: listed, revealable.
	tok := e.userToken("VU-1")
	_, l, _ := e.s.Client.ListCards(e.ctx, tok, "")
	if l.Total != 1 || fmt.Sprint(l.Rewards[0].RewardID) != id {
		t.Errorf("listing after bank issue: %+v", l)
	}
	var rid uint64
	fmt.Sscan(id, &rid)
	if r := e.mustReveal(tok, "VU-1", rid); r.OfferTitle == "" {
		t.Errorf("bank card reveal: %+v", r)
	}
	// The push to deviceToken is recorded and readable.
	var n struct {
		Notifications []struct {
			DeviceToken, VirtualID, CampaignID, ExtTransactionID, Title, DeepLink string
			RewardID                                                              uint64
		} `json:"notifications"`
	}
	e.control("/__sim/notifications?channel=DEMOBANK&deviceToken=device-VU-1", &n)
	if len(n.Notifications) != 1 || n.Notifications[0].RewardID != rid || n.Notifications[0].DeepLink != ans.DeepLink ||
		n.Notifications[0].CampaignID != "CAMP-DEMO" || n.Notifications[0].Title == "" {
		t.Errorf("notifications %+v", n)
	}
	e.control("/__sim/notifications?channel=DEMOBANK&deviceToken=nobody", &n)
	if len(n.Notifications) != 0 {
		t.Errorf("filter by deviceToken: %+v", n)
	}

	// Not eligible: unknown campaignId is status false with empty strings.
	r := bankReq("VU-1", "ORDER-2")
	r.CampaignID = "UPI" // a trigger code, not a campaignId
	res, ans, err = e.s.Client.BankCard(e.ctx, r)
	if err != nil || ans.Status || ans.Message != "failure" || ans.DeepLink != "" || ans.Banner != "" {
		t.Errorf("unknown campaignId: %v %+v", err, ans)
	}
	golden.Check(t, "cards/GetScratchCardForBank.not-eligible.json", res.BDATA)

	// Malformed BDATA: the bare failure naming the field.
	for name, edit := range map[string]func(*publisher.BankCardRequest){
		"bad transDateAndTime": func(r *publisher.BankCardRequest) { r.TransDateAndTime = "15012026100000" },
		"invalid date":         func(r *publisher.BankCardRequest) { r.TransDateAndTime = "2026-02-30 10:00:00" },
		"amount not a number":  func(r *publisher.BankCardRequest) { r.Amount = "five" },
	} {
		r := bankReq("VU-1", "ORDER-3")
		edit(&r)
		if _, _, err := e.s.Client.BankCard(e.ctx, r); !isInvalid(err, "") {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, err = e.s.Client.CallSigned(e.ctx, e.s.BankURL+"/api/GetScratchCardForBank", "", map[string]any{"virtualId": "VU-1", "amount": 5})
	if !isInvalid(err, "amount") {
		t.Errorf("non-string amount: %v", err)
	}
}

// clause: BANK-2
func TestBankCard_BANK2_amountUnitPicksTier(t *testing.T) {
	eachSwitch(t, "bankAmountUnit", []string{"rupees", "paisa"}, func(t *testing.T, e *cardEnv, unit string) {
		r := bankReq("VU-1", "ORDER-1")
		r.CampaignID, r.Amount = "CAMP-BANK", "50000"
		_, ans, err := e.s.Client.BankCard(e.ctx, r)
		if err != nil || !ans.Status {
			t.Fatalf("%v %+v", err, ans)
		}
		want := map[string]string{"rupees": "BIG", "paisa": "SMALL"}[unit] // 50000 rupees vs 500 rupees
		if got := e.stored("DEMOBANK", 1).Pool; got != want {
			t.Errorf("amount 50000 in %s picked pool %s, want %s", unit, got, want)
		}
	})
}

// clause: BANK-3
func TestBankCard_BANK3_resendSwitch(t *testing.T) {
	eachSwitch(t, "bankResend", []string{"original", "new"}, func(t *testing.T, e *cardEnv, mode string) {
		r := bankReq("VU-1", "ORDER-1")
		r.CampaignID = "CAMP-BANK"
		_, a, err1 := e.s.Client.BankCard(e.ctx, r)
		res, b, err2 := e.s.Client.BankCard(e.ctx, r)
		if err1 != nil || err2 != nil || !a.Status || !b.Status {
			t.Fatalf("%v %v", err1, err2)
		}
		_, l, _ := e.s.Client.ListCards(e.ctx, e.userToken("VU-1"), "")
		if mode == "original" && (a.DeepLink != b.DeepLink || l.Total != 1 || !strings.Contains(reasonOf(res), "original card")) {
			t.Errorf("original: %s then %s, %d cards", a.DeepLink, b.DeepLink, l.Total)
		}
		if mode == "new" && (a.DeepLink == b.DeepLink || l.Total != 2) {
			t.Errorf("new: %s then %s, %d cards", a.DeepLink, b.DeepLink, l.Total)
		}
	})
}

// clause: BANK-4
func TestBankCard_BANK4_notEligibleSignedOrBare(t *testing.T) {
	eachSwitch(t, "bankNotEligible", []string{"signed", "bare"}, func(t *testing.T, e *cardEnv, mode string) {
		r := bankReq("VU-1", "ORDER-1")
		r.CampaignID = "NO-SUCH"
		res, ans, err := e.s.Client.BankCard(e.ctx, r)
		if err != nil || ans.Status || ans.Message != "failure" || ans.DeepLink != "" || ans.Banner != "" || res.StatusCode != http.StatusOK {
			t.Fatalf("%v %s", err, res.Body)
		}
		if signed := res.Envelope != nil; signed != (mode == "signed") {
			t.Errorf("signed=%v: %s", signed, res.Body)
		}
		if mode == "bare" {
			golden.Check(t, "cards/GetScratchCardForBank.not-eligible.bare.json", res.Body)
		}
		// Signature failures are bare in both positions.
		bad, _ := publisher.Seal(e.s.PublisherKey, "DEMOBANK", bankReq("VU-1", "ORDER-2"))
		bad.BDATA = bad.BDATA[:len(bad.BDATA)-4] + "AAAA"
		if _, err := e.s.Client.PostEnvelope(e.ctx, e.s.BankURL+"/api/GetScratchCardForBank", "", bad); !publisher.IsFailure(err, "Signature Mismatch!") {
			t.Errorf("tampered BDATA: %v", err)
		}
	})
}

// clause: TRK-1
func TestTracking_TRK1_recordedPerCard(t *testing.T) {
	e := newCardEnv(t)
	_, ans := e.getReward(e.req("VU-1", "UPI"))
	c := ans.Rewards[0]
	other := e.issue("VU-1", "IMPS")
	r := e.mustReveal(e.userToken("VU-1"), "VU-1", c.RewardID)
	get := func(u string) int {
		res, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, u := range append(append(c.TrackLink, c.TrackLink...), append(ans.Clicktrack, r.ClickTrack...)...) {
		if code := get(u); code != http.StatusNoContent {
			t.Errorf("GET %s: HTTP %d", u, code)
		}
	}
	type tracking struct {
		RewardID    uint64 `json:"rewardId"`
		VirtualID   string `json:"virtualId"`
		Impressions int    `json:"impressions"`
		Clicks      int    `json:"clicks"`
		Events      []struct {
			Kind, Source string
		} `json:"events"`
	}
	var got tracking
	if code := e.control(fmt.Sprintf("/__sim/tracking?rewardId=%d", c.RewardID), &got); code != 200 {
		t.Fatalf("tracking: HTTP %d", code)
	}
	if got.Impressions != 2 || got.Clicks != 2 || got.VirtualID != "VU-1" || len(got.Events) != 4 ||
		got.Events[2].Source != "card" || got.Events[3].Source != "reward" {
		t.Errorf("tracking of card %d: %+v", c.RewardID, got)
	}
	var none tracking
	e.control(fmt.Sprintf("/__sim/tracking?rewardId=%d&channel=DEMOBANK", other), &none)
	if none.Impressions != 0 || none.Clicks != 0 {
		t.Errorf("untouched card: %+v", none)
	}
	if code := get(e.s.RewardsURL + "/track/click?channel=DEMOBANK&rewardId=999"); code != http.StatusNotFound {
		t.Errorf("unknown card tracking: HTTP %d", code)
	}
	if code := e.control("/__sim/tracking?rewardId=999", nil); code != http.StatusNotFound {
		t.Errorf("tracking of an unknown card: HTTP %d", code)
	}
}
