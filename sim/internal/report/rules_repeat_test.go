package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
)

// reveal is a FetchRewardInfo of card id by vid; revealed says whether the
// answer handed out the reward.
func reveal(min int, vid, id string, revealed bool) journal.Entry {
	return ex("/api/FetchRewardInfo", min, func(e *journal.Entry) {
		e.Endpoint = "FetchRewardInfo"
		e.Request.BDATA = json.RawMessage(`{"rewardId":"` + id + `","virtualId":"` + vid + `","channelName":"DEMOBANK"}`)
		if revealed {
			e.Response.BDATA = json.RawMessage(`{"status":true,"message":"success","rewardId":` + id + `}`)
		} else { // refused, but not as already revealed: that answer is itself a finding
			e.Status = 200
			e.Response.Body = json.RawMessage(`{"STATUS":"FAILURE","ERRORSTRING":"Invalid Request!"}`)
		}
	})
}

func getRewardCall(min int, body string, created bool) journal.Entry {
	ans := `{"status":false,"message":"failure","rewards":[],"clicktrack":[]}`
	if created {
		ans = `{"status":true,"message":"success","rewards":[{"rewardId":1}],"clicktrack":[]}`
	}
	return ex("/api/GetReward", min, reqBody(body), resBody(ans))
}

func withCoins(e journal.Entry, coins string) journal.Entry {
	e.Request.Body = json.RawMessage(strings.Replace(string(e.Request.Body), `"coinsUsed":"10"`, `"coinsUsed":`+coins, 1))
	return e
}

// clause: REV-2, GR-4, CPN-5
// Each rule on a request sent again: the entries that provoke it give
// exactly its finding and count; the correct publisher's give none.
func TestReport_repeatedRequestRules(t *testing.T) {
	changedAmount := strings.Replace(goodReward, "149.50", "150.00", 1)
	samePlainAmount := strings.Replace(goodReward, "149.50", "149.5", 1)
	cases := []struct {
		rule, clause string
		bad, good    []journal.Entry
		count        int
		detail       string
	}{
		{"second-reveal", "REV-2",
			[]journal.Entry{reveal(0, "VU-1", "7", true), reveal(1, "VU-1", "7", false), reveal(2, "VU-1", "7", false)},
			// distinct cards, another user's card of the same number, a refused first try, and
			// the same id revealed afresh after a reset (a recording replayed twice)
			[]journal.Entry{reveal(0, "VU-1", "7", false), reveal(1, "VU-1", "7", true), reveal(2, "VU-1", "8", true), reveal(3, "VU-2", "7", true),
				reveal(4, "VU-1", "8", true)},
			2, "card 7 was revealed again"},
		{"get-reward-conflicting-duplicate", "GR-4",
			[]journal.Entry{getRewardCall(0, goodReward, true), getRewardCall(1, changedAmount, true), getRewardCall(2, goodReward, true)},
			// the same body again (amount written otherwise), and a body changed after a not-eligible answer
			[]journal.Entry{getRewardCall(0, goodReward, true), getRewardCall(1, samePlainAmount, true),
				getRewardCall(2, strings.Replace(goodReward, `"T1"`, `"T2"`, 1), false), getRewardCall(3, strings.Replace(changedAmount, `"T1"`, `"T2"`, 1), true)},
			1, "different amount"},
		{"coupon-claim-conflicting-duplicate", "CPN-5",
			[]journal.Entry{coupon(0, "VU-1", "OFFER-1", "TX-1", gone), withCoins(coupon(1, "VU-1", "OFFER-1", "TX-1"), `"20"`)},
			[]journal.Entry{coupon(0, "VU-1", "OFFER-1", "TX-1", gone), coupon(1, "VU-1", "OFFER-1", "TX-1"), withCoins(coupon(2, "VU-1", "OFFER-1", "TX-2"), `"20"`)},
			1, "coinsUsed 10, then 20"},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			r := Build(tc.bad, Options{})
			if len(r.Findings) != 1 || r.Findings[0].ID != tc.rule || r.Findings[0].Clause != tc.clause || r.Findings[0].Count != tc.count {
				t.Fatalf("findings %+v, want %s/%s counted %d", r.Findings, tc.rule, tc.clause, tc.count)
			}
			if d := r.Findings[0].Example.Detail; !strings.Contains(d, tc.detail) {
				t.Errorf("detail %q, want it to contain %q", d, tc.detail)
			}
			if r := Build(tc.good, Options{}); len(r.Findings) != 0 {
				t.Errorf("a correct publisher: %+v", r.Findings)
			}
		})
	}
}
