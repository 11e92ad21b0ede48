package sim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// cardScenario is the scratch-card test scenario; switches is YAML
// indented under switches.cards.
func cardScenario(switches string) string {
	if switches == "" {
		switches = "{}"
	} else {
		switches = "\n" + switches
	}
	return strings.ReplaceAll(`version: 1
name: cards-test
seed: 7
switches:
  cards: SWITCHES
channels:
  - {name: DEMOBANK, channelId: DEMOBANK, certificateFile: "builtin:publisher-dev.crt"}
  - {name: OTHERBANK, channelId: OTHERBANK, certificateFile: "builtin:publisher-dev.crt"}
campaigns:
  - {id: C-UPI, channel: DEMOBANK, triggers: [UPI], pool: MAIN}
  - {id: C-CAP, channel: DEMOBANK, triggers: [CAPPED], pool: MAIN, caps: [{max: 2, period: 24h}]}
  - {id: C-WINDOW, channel: DEMOBANK, triggers: [WINDOW], pool: MAIN, activeFrom: "2026-01-15T09:00:00+05:30", activeTo: "2026-01-15T12:00:00+05:30"}
  - {id: C-LATER, channel: DEMOBANK, triggers: [LATER], pool: MAIN, activeFrom: "2026-02-01T00:00:00+05:30"}
  - {id: C-TARGET, channel: DEMOBANK, triggers: [TARGETED], pool: MAIN, targeting: [{key: state, in: [KA]}, {key: age, min: 18}]}
  - {id: C-SUB, channel: DEMOBANK, triggers: [SUB], subTriggers: [P2M], pool: MAIN}
  - {id: C-TIER, channel: DEMOBANK, triggers: [TIER], tiers: [{minAmount: 100, pool: SMALL}, {minAmount: 1000, pool: BIG}]}
  - {id: C-MULTI, channel: DEMOBANK, triggers: [MULTI], pool: MAIN, cardsPerEvent: 3}
  - {id: C-STOCK, channel: DEMOBANK, triggers: [STOCK], pool: STOCK5, banner: "https://unreachable.invalid/stock.png"}
  - {id: C-CITY, channel: DEMOBANK, triggers: [CITY], pool: CITY}
  - {id: C-EXPIRE, channel: DEMOBANK, triggers: [EXPIRE], pool: MAIN, cardExpiry: 1h}
  - {id: CAMP-BANK, channel: DEMOBANK, tiers: [{minAmount: 0, pool: SMALL}, {minAmount: 1000, pool: BIG}], banner: "https://rewardsim.invalid/b.png"}
  - {id: C-UPI, channel: OTHERBANK, triggers: [UPI], pool: MAIN}
pools:
  - id: MAIN
    entries:
      - {id: HEAVY, weight: 3, couponPattern: "H-{seq:4}", offer: {offerTitle: Heavy, couponType: CODE, terms: T, redeemSteps: R, couponImage: "https://img/h.png", promoLink: "https://go/h"}}
      - {id: LIGHT, weight: 1, couponCodes: [L-1, L-2, L-3, L-4, L-5, L-6, L-7, L-8, L-9, L-10, L-11, L-12, L-13, L-14, L-15, L-16, L-17, L-18, L-19, L-20, L-21, L-22, L-23, L-24, L-25, L-26, L-27, L-28, L-29, L-30, L-31, L-32, L-33, L-34, L-35, L-36, L-37, L-38, L-39, L-40], offer: {offerTitle: Light}}
  - id: SMALL
    entries: [{id: SMALL, offer: {offerTitle: Small}}]
  - id: BIG
    entries: [{id: BIG, offer: {offerTitle: Big}}]
  - id: STOCK5
    entries: [{id: FIVE, stock: 5, couponPattern: "FIVE-{seq}", offer: {offerTitle: One of five}}]
    fallback: {offerTitle: Better luck next time, couponType: NONE}
  - id: CITY
    entries: [{id: PUNE, targeting: [{key: city, in: [Pune]}], offer: {offerTitle: Pune only}}]
`, "SWITCHES", switches)
}

// cardEnv is a harness with tokens ready.
type cardEnv struct {
	t   *testing.T
	s   *simtest.Server
	ctx context.Context
	ref string
	seq int
}

func newCardEnv(t *testing.T, opts ...simtest.Option) *cardEnv {
	t.Helper()
	s := simtest.New(t, opts...)
	e := &cardEnv{t: t, s: s, ctx: context.Background()}
	e.ref = e.refToken(s.Client)
	return e
}

func newCardScenario(t *testing.T, switches string) *cardEnv {
	t.Helper()
	return newCardEnv(t, simtest.WithScenarioYAML(cardScenario(switches)))
}

func (e *cardEnv) refToken(c *publisher.Client) string {
	e.t.Helper()
	tok, err := c.ReferenceToken(e.ctx)
	if err != nil {
		e.t.Fatalf("reference token: %v", err)
	}
	return tok.ReferenceKey
}

func (e *cardEnv) userToken(vid string) string {
	e.t.Helper()
	tok, err := e.s.Client.UserToken(e.ctx, vid)
	if err != nil {
		e.t.Fatalf("user token: %v", err)
	}
	return tok.Token
}

// req is a valid GetReward body for vid and trigger with a fresh extTransactionId.
func (e *cardEnv) req(vid, trigger string) map[string]any {
	e.seq++
	return map[string]any{
		"channelName": "DEMOBANK", "virtualId": vid, "triggerEventType": trigger,
		"extTransactionId": fmt.Sprintf("TXN%05d", e.seq), "amount": 250.50, "dateandtime": "15012026100000",
	}
}

func (e *cardEnv) getReward(body any) (*publisher.Response, publisher.GetRewardAnswer) {
	e.t.Helper()
	res, ans, err := e.s.Client.GetReward(e.ctx, e.ref, body)
	if err != nil {
		e.t.Fatalf("GetReward: %v", err)
	}
	return res, ans
}

// issue creates one card for vid and trigger and returns its rewardId.
func (e *cardEnv) issue(vid, trigger string) uint64 {
	e.t.Helper()
	res, ans := e.getReward(e.req(vid, trigger))
	if !ans.Status || len(ans.Rewards) == 0 {
		e.t.Fatalf("GetReward %s for %s: not eligible: %s (%s)", trigger, vid, res.Body, res.Header.Get("X-Rewardsim-Reason"))
	}
	return ans.Rewards[0].RewardID
}

func (e *cardEnv) reveal(tok, vid string, id uint64) (*publisher.Response, publisher.RevealedReward, error) {
	return e.s.Client.FetchRewardInfo(e.ctx, tok, vid, id)
}

func (e *cardEnv) mustReveal(tok, vid string, id uint64) publisher.RevealedReward {
	e.t.Helper()
	_, r, err := e.reveal(tok, vid, id)
	if err != nil {
		e.t.Fatalf("reveal %d: %v", id, err)
	}
	return r
}

// control GETs a control path and decodes the JSON answer.
func (e *cardEnv) control(path string, out any) int {
	e.t.Helper()
	res, err := http.Get(e.s.ControlURL + path)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if out != nil && res.StatusCode == http.StatusOK {
		if err := json.Unmarshal(raw, out); err != nil {
			e.t.Fatalf("%s: %v: %s", path, err, raw)
		}
	}
	return res.StatusCode
}

// storedCard is a card as GET /__sim/cards/N shows it.
type storedCard struct {
	RewardID    uint64            `json:"rewardId"`
	VirtualID   string            `json:"virtualId"`
	Pool        string            `json:"pool"`
	DateAndTime string            `json:"dateandtime"`
	Params      map[string]string `json:"params"`
	Reward      *struct {
		EntryID    string `json:"entryId"`
		OfferTitle string `json:"offerTitle"`
		CouponCode string `json:"couponCode"`
		Fallback   bool   `json:"fallback"`
	} `json:"reward"`
}

func (e *cardEnv) stored(channel string, id uint64) storedCard {
	e.t.Helper()
	var c storedCard
	if code := e.control(fmt.Sprintf("/__sim/cards/%d?channel=%s", id, channel), &c); code != http.StatusOK {
		e.t.Fatalf("card %d of %s: HTTP %d", id, channel, code)
	}
	return c
}

// other is a client of the scenario's second channel, OTHERBANK.
func (e *cardEnv) other() *publisher.Client {
	c := *e.s.Client
	c.ChannelID, c.Channel = "OTHERBANK", "OTHERBANK"
	return &c
}

func reasonOf(res *publisher.Response) string { return res.Header.Get("X-Rewardsim-Reason") }

// eachSwitch runs fn once per value of a switches.cards key, each on a
// fresh simulator of the card scenario, so every position is tested.
func eachSwitch(t *testing.T, key string, values []string, fn func(t *testing.T, e *cardEnv, value string)) {
	for _, v := range values {
		t.Run(key+"="+v, func(t *testing.T) { fn(t, newCardScenario(t, "    "+key+": "+v), v) })
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
