package main

// The targets: the simulator's state each one needs, made before the
// clock starts.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rewardsim/rewardsim/sim/publisher"
)

func newClient(base string) (*publisher.Client, error) {
	keyPEM, err := os.ReadFile(filepath.Join(*certs, "publisher-dev.key"))
	if err != nil {
		return nil, err
	}
	key, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		return nil, err
	}
	certPEM, err := os.ReadFile(filepath.Join(*certs, "service-dev.crt"))
	if err != nil {
		return nil, err
	}
	svc, err := publisher.ParsePublicKeyPEM(certPEM)
	if err != nil {
		return nil, err
	}
	return &publisher.Client{HTTP: client, RewardsURL: base, BankURL: base, HotdealsURL: base,
		ChannelID: "DEMOBANK", Channel: "DEMOBANK", Key: key, ServiceKey: svc,
		AppKey: "DEMOAPPKEY", SecKey: "DEMOSECKEY"}, nil
}

// prepared bounds the targets that need one prepared (signed) request each.
const prepared = 3000

// prepare makes the tokens, cards and pre-signed bodies the targets need;
// none of it is timed. The bounded targets, whose requests are prepared
// one by one, are made only when need names them.
func prepare(c *publisher.Client, need func(target string) bool) ([]target, error) {
	ctx := context.Background()
	base := c.RewardsURL
	ref, err := c.ReferenceToken(ctx)
	if err != nil {
		return nil, fmt.Errorf("getSecuredReferenceToken: %w", err)
	}
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	listTok, sess, err := prepareLister(ctx, c, ref.ReferenceKey)
	if err != nil {
		return nil, err
	}
	bounded, err := prepareBounded(ctx, c, ref.ReferenceKey, run, need)
	if err != nil {
		return nil, err
	}
	refBody := sealed(c, map[string]string{"bName": "DEMOBANK"})
	authBody := sealed(c, map[string]string{"virtualId": "AUTH-USER", "channelName": "DEMOBANK"})
	sessBody := sealed(c, map[string]string{"bName": "DEMOBANK", "virtualId": lister})
	coupon := c.APIKeyHeader()

	targets := []target{
		{name: "getSecuredReferenceToken", want: `"SIGN"`, next: func(int) *http.Request {
			return post(base+"/api/getSecuredReferenceToken", "", refBody, nil)
		}},
		{name: "GetAuthToken", want: `"SIGN"`, next: func(int) *http.Request { return post(base+"/api/GetAuthToken", "", authBody, nil) }},
		{name: "GenerateSessionInfoV2", want: `"SIGN"`, next: func(int) *http.Request { return post(base+"/api/GenerateSessionInfoV2", "", sessBody, nil) }},
	}
	targets = append(targets, bounded...)
	return append(targets, []target{
		{name: "GetReward-new-card", want: `"status":true`, next: func(i int) *http.Request {
			return post(base+"/api/GetReward", ref.ReferenceKey, getReward(fmt.Sprintf("GR-%s-%d", run, i), fmt.Sprintf("GRT-%s-%d", run, i)), nil)
		}},
		{name: "fetchCouponCode-new-claim", want: `"coupon_code"`, next: func(i int) *http.Request {
			return post(base+"/api/fetchCouponCode", "", fmt.Appendf(nil, `{"offerId":"OFFER-DEMO","virtualId":"CP-%s-%d","channelName":"DEMOBANK","extTransactionId":"CPT-%s-%d","coinsUsed":"100"}`, run, i, run, i), coupon)
		}},
		{name: "listing-10-cards", want: `"total":10`, next: func(int) *http.Request {
			return get(base+"/api/GetAllScratchCardsByUserId?page=1&limit=10", listTok.Token)
		}},
		{name: "microsite-page", want: `class="tile revealed`, next: func(int) *http.Request {
			return get(base+"/microsite?virtualId="+lister+"&sessionId="+sess.SessionID, "")
		}},
	}...), nil
}

// prepareBounded makes the targets whose every request is prepared (a
// card to reveal, a sealed bank request), those need names.
func prepareBounded(ctx context.Context, c *publisher.Client, refKey, run string, need func(string) bool) ([]target, error) {
	base := c.RewardsURL
	cards, signed := 0, 0
	if need("FetchRewardInfo") {
		cards, signed = prepared, prepared
	}
	if need("GetScratchCardForBank") {
		signed += prepared
	}
	if signed == 0 {
		return nil, nil
	}
	fmt.Printf("# preparing %d cards and %d signed requests...\n", cards, signed)
	var bounded []target
	if cards > 0 {
		reveal, revealTok, err := prepareReveals(ctx, c, refKey, run)
		if err != nil {
			return nil, err
		}
		bounded = append(bounded, target{name: "FetchRewardInfo", want: `"SIGN"`, limit: len(reveal), next: func(i int) *http.Request {
			return post(base+"/api/FetchRewardInfo", revealTok[i], reveal[i], nil)
		}})
	}
	if signed > cards {
		bank := make([][]byte, prepared)
		for i := range bank {
			bank[i] = sealed(c, publisher.BankCardRequest{VirtualID: fmt.Sprintf("BK-%s-%d", run, i), TransDateAndTime: "2026-01-15 10:00:00",
				Amount: "100.00", MCC: "5411", ExtTransactionID: fmt.Sprintf("BKT-%s-%d", run, i), CampaignID: "CAMP-DEMO"})
		}
		bounded = append(bounded, target{name: "GetScratchCardForBank", want: `"SIGN"`, limit: len(bank), next: func(i int) *http.Request {
			return post(base+"/api/GetScratchCardForBank", "", bank[i], nil)
		}})
	}
	return bounded, nil
}

// getReward is a GetReward request body for user vid, transaction tx.
func getReward(vid, tx string) []byte {
	return fmt.Appendf(nil, `{"channelName":"DEMOBANK","virtualId":%q,"triggerEventType":"UPI","extTransactionId":%q,"amount":100.00,"dateandtime":"15012026100000"}`, vid, tx)
}

// lister is a user with ten cards, five revealed: the listing and the
// microsite.
const lister = "LIST-USER"

// prepareLister gives lister its cards and returns lister's token and
// microsite session.
func prepareLister(ctx context.Context, c *publisher.Client, refKey string) (publisher.UserToken, publisher.Session, error) {
	listTok, err := c.UserToken(ctx, lister)
	if err != nil {
		return publisher.UserToken{}, publisher.Session{}, err
	}
	for i := range 10 {
		_, ans, err := c.GetReward(ctx, refKey, json.RawMessage(getReward(lister, "LT"+strconv.Itoa(i))))
		if err != nil || !ans.Status {
			return publisher.UserToken{}, publisher.Session{}, fmt.Errorf("GetReward: %v %+v", err, ans)
		}
		if i%2 == 0 {
			if _, _, err := c.FetchRewardInfo(ctx, listTok.Token, lister, ans.Rewards[0].RewardID); err != nil {
				return publisher.UserToken{}, publisher.Session{}, err
			}
		}
	}
	sess, err := c.Session(ctx, lister)
	return listTok, sess, err
}

// prepareReveals makes the unrevealed cards FetchRewardInfo reveals,
// each request sealed with its user's token beside it.
func prepareReveals(ctx context.Context, c *publisher.Client, refKey, run string) ([][]byte, []string, error) {
	// 50 per user: the daily cap.
	reveal := make([][]byte, 0, prepared)
	revealTok := make([]string, 0, prepared)
	for u := 0; len(reveal) < prepared; u++ {
		vid := fmt.Sprintf("RV-%s-%d", run, u)
		tok, err := c.UserToken(ctx, vid)
		if err != nil {
			return nil, nil, err
		}
		for i := 0; i < 50 && len(reveal) < prepared; i++ {
			_, ans, err := c.GetReward(ctx, refKey, json.RawMessage(getReward(vid, fmt.Sprintf("RT-%s-%d-%d", run, u, i))))
			if err != nil || !ans.Status {
				return nil, nil, fmt.Errorf("GetReward: %v %+v", err, ans)
			}
			reveal = append(reveal, sealed(c, map[string]string{"rewardId": strconv.FormatUint(ans.Rewards[0].RewardID, 10), "virtualId": vid, "channelName": "DEMOBANK"}))
			revealTok = append(revealTok, tok.Token)
		}
	}
	return reveal, revealTok, nil
}
