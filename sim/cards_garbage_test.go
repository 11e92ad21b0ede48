package sim_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/publisher"
)

// Garbage in: a clear answer in the endpoint's shape, never a 5xx or a
// panic (the harness fails any 5xx and any answer outside the schema).
// clause: GR-1, ENV-6
func TestCards_garbageNeverBreaks(t *testing.T) {
	e := newCardScenario(t, "")
	bearer := func(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }
	for _, body := range []string{
		"", "[]", "null", "123", `"x"`, `{}`, `{"amount":1e400}`, strings.Repeat("[", 10000),
		`{"channelName":"DEMOBANK","virtualId":"V","triggerEventType":"UPI","extTransactionId":"X","dateandtime":"15012026100000","amount":1e400}`,
		`{"channelName":"DEMOBANK","virtualId":"V","triggerEventType":"UPI","extTransactionId":"X","dateandtime":"15012026100000","additionalParams":"[1,2]"}`,
		`{"channelName":"DEMOBANK","virtualId":"V","triggerEventType":"UPI","extTransactionId":"X","dateandtime":"15012026100000","additionalParams":"null"}`,
		`{"channelName":"DEMOBANK","virtualId":"V","triggerEventType":"UPI","extTransactionId":"X","dateandtime":"15012026100000","additionalParams":"{\"age\":[1]}"}`,
		`{"channelName":"DEMOBANK","virtualId":"V","triggerEventType":"UPI","extTransactionId":"X","dateandtime":"15012026100000"} trailing`,
	} {
		res, err := e.s.Client.Do(e.ctx, "POST", e.s.RewardsURL+"/api/GetReward", bearer(e.ref), []byte(body))
		if err != nil || res.StatusCode != 400 || !strings.Contains(string(res.Body), `"status":false`) {
			t.Errorf("GetReward %.40q: %v HTTP %d %s", body, err, res.StatusCode, res.Body)
		}
	}
	ut := e.userToken("VU-1")
	id := e.issue("VU-1", "UPI")
	env := func(bdata string) publisher.Envelope {
		sign, _ := publisher.Sign(e.s.PublisherKey, bdata)
		return publisher.Envelope{CHANNELID: "DEMOBANK", SIGN: sign, BDATA: bdata}
	}
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for name, en := range map[string]publisher.Envelope{
		"BDATA not base64":   env("%%%"),
		"BDATA not JSON":     env(b64("{")),
		"BDATA an array":     env(b64("[]")),
		"rewardId a number":  env(b64(`{"rewardId":1,"virtualId":"VU-1","channelName":"DEMOBANK"}`)),
		"rewardId zero":      env(b64(`{"rewardId":"0","virtualId":"VU-1","channelName":"DEMOBANK"}`)),
		"rewardId too large": env(b64(`{"rewardId":"99999999999999999999","virtualId":"VU-1","channelName":"DEMOBANK"}`)),
		"no virtualId":       env(b64(`{"rewardId":"1","channelName":"DEMOBANK"}`)),
		"unknown CHANNELID":  {CHANNELID: "NOPE", SIGN: "AAAA", BDATA: b64("{}")},
	} {
		_, err := e.s.Client.PostEnvelope(e.ctx, e.s.RewardsURL+"/api/FetchRewardInfo", ut, en)
		if !isInvalid(err, "") {
			t.Errorf("FetchRewardInfo, %s: %v", name, err)
		}
	}
	for _, body := range []string{"", "null", "[]", `{"CHANNELID":1}`, strings.Repeat("{", 5000)} {
		res, _ := e.s.Client.Do(e.ctx, "POST", e.s.RewardsURL+"/api/FetchRewardInfo", bearer(ut), []byte(body))
		if !strings.Contains(string(res.Body), "Invalid Request!") {
			t.Errorf("FetchRewardInfo %.40q: HTTP %d %s", body, res.StatusCode, res.Body)
		}
	}
	if st := e.stored("DEMOBANK", id); st.Reward != nil {
		t.Errorf("a refused call revealed card %d", id)
	}
	for _, q := range []string{"page=99999999999999999999", "limit=1&page=1000000", "page=%zz"} {
		res, _ := e.s.Client.Do(e.ctx, "GET", e.s.RewardsURL+"/api/GetAllScratchCardsByUserId?"+q, bearer(ut), nil)
		if res.StatusCode >= 500 {
			t.Errorf("listing %s: HTTP %d", q, res.StatusCode)
		}
	}
	for _, q := range []string{"", "channel=DEMOBANK", "channel=DEMOBANK&rewardId=x", "channel=NOPE&rewardId=1"} {
		res, _ := e.s.Client.Do(e.ctx, "GET", e.s.RewardsURL+"/track/click?"+q, nil, nil)
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("tracking %q: HTTP %d", q, res.StatusCode)
		}
	}
}
