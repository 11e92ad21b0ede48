package scenario

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Campaign issues scratch cards for one channel (GR-2, GR-3, BANK-1).
type Campaign struct {
	// ID is the campaignId of GetScratchCardForBank.
	ID      string `yaml:"id"`
	Channel string `yaml:"channel"`
	// Triggers are the triggerEventType codes of GetReward it answers;
	// SubTriggers, when set, restrict subTriggerEventType.
	Triggers    []string `yaml:"triggers"`
	SubTriggers []string `yaml:"subTriggers"`
	// MCCs, when set, restrict the mcc of GetScratchCardForBank.
	MCCs []string `yaml:"mccs"`
	// ActiveFrom and ActiveTo bound the campaign on the simulated clock
	// (RFC 3339; either may be empty).
	ActiveFrom    string         `yaml:"activeFrom"`
	ActiveTo      string         `yaml:"activeTo"`
	CardsPerEvent int            `yaml:"cardsPerEvent"`
	Caps          []Cap          `yaml:"caps"`
	Pool          string         `yaml:"pool"`
	Tiers         []Tier         `yaml:"tiers"`
	Targeting     []Rule         `yaml:"targeting"`
	CardExpiry    model.Duration `yaml:"cardExpiry"`
	Banner        string         `yaml:"banner"`
	Notification  string         `yaml:"notification"`

	from, to time.Time
}

// Cap limits the events of one user in a sliding period of the simulated clock.
type Cap struct {
	Max    int            `yaml:"max"`
	Period model.Duration `yaml:"period"`
}

// Tier selects a pool for amounts at or above MinAmount (rupees).
type Tier struct {
	MinAmount float64 `yaml:"minAmount"`
	Pool      string  `yaml:"pool"`
}

// Rule is a targeting rule on an additionalParams key: the value must be
// one of In, or a number within [Min, Max].
type Rule struct {
	Key string   `yaml:"key"`
	In  []string `yaml:"in"`
	Min *float64 `yaml:"min"`
	Max *float64 `yaml:"max"`
}

// Pool is a weighted set of offers, picked at reveal (REV-6).
type Pool struct {
	ID       string       `yaml:"id"`
	Entries  []PoolEntry  `yaml:"entries"`
	Fallback *model.Offer `yaml:"fallback"`
}

// PoolEntry is one offer of a pool.
type PoolEntry struct {
	ID     string `yaml:"id"`
	Weight int    `yaml:"weight"`
	// Stock bounds how often the entry is handed out per channel; absent
	// means unlimited (or the length of CouponCodes).
	Stock         *int           `yaml:"stock"`
	CouponCodes   []string       `yaml:"couponCodes"`
	CouponPattern string         `yaml:"couponPattern"`
	ValidFor      model.Duration `yaml:"validFor"`
	Targeting     []Rule         `yaml:"targeting"`
	Offer         model.Offer    `yaml:"offer"`
}

// CardSwitches are the behaviour switches of the scratch-card endpoints
// (switches.cards); their defaults are SwitchTable's.
type CardSwitches struct {
	AmountRequired         bool   `yaml:"amountRequired"`
	DateAndTime            string `yaml:"dateandtime"`
	NestedAdditionalParams string `yaml:"nestedAdditionalParams"`
	ChannelMismatch        string `yaml:"channelMismatch"`
	InvalidRequestStatus   int    `yaml:"invalidRequestStatus"`
	SecondReveal           string `yaml:"secondReveal"`
	FetchSignRequired      *bool  `yaml:"fetchSignRequired"`
	FetchAnswerSigned      *bool  `yaml:"fetchAnswerSigned"`
	ListDefaultLimit       int    `yaml:"listDefaultLimit"`
	ListMaxLimit           int    `yaml:"listMaxLimit"`
	ListBadValues          string `yaml:"listBadValues"`
	BankAmountUnit         string `yaml:"bankAmountUnit"`
	BankResend             string `yaml:"bankResend"`
	BankNotEligible        string `yaml:"bankNotEligible"`
}

func applyCampaignDefaults(f *File) {
	for i := range f.Campaigns {
		c := &f.Campaigns[i]
		if c.CardsPerEvent == 0 {
			c.CardsPerEvent = 1
		}
		if len(c.Tiers) == 0 && c.Pool != "" {
			c.Tiers = []Tier{{MinAmount: 0, Pool: c.Pool}}
		}
		sort.SliceStable(c.Tiers, func(a, b int) bool { return c.Tiers[a].MinAmount < c.Tiers[b].MinAmount })
	}
}

var patternRe = regexp.MustCompile(`\{(seq|rand)(:[0-9]+)?\}|\{rewardId\}`)

// compileCards checks campaigns and pools against each other and the channels.
func compileCards(s *Scenario, fail func(p, msg string)) {
	if s.Switches.Cards.ListDefaultLimit > s.Switches.Cards.ListMaxLimit {
		fail("/switches/cards/listDefaultLimit", "is larger than listMaxLimit")
	}
	pools := map[string]*Pool{}
	for i := range s.Pools {
		p := &s.Pools[i]
		path := fmt.Sprintf("/pools/%d", i)
		if pools[p.ID] != nil {
			fail(path+"/id", fmt.Sprintf("pool id %q is used twice", p.ID))
		}
		pools[p.ID] = p
		ids := map[string]bool{}
		for j, e := range p.Entries {
			ep := fmt.Sprintf("%s/entries/%d", path, j)
			if ids[e.ID] {
				fail(ep+"/id", fmt.Sprintf("entry id %q is used twice in pool %s", e.ID, p.ID))
			}
			ids[e.ID] = true
			if e.CouponPattern != "" && !patternRe.MatchString(e.CouponPattern) {
				fail(ep+"/couponPattern", "has no {seq}, {seq:N}, {rand:N} or {rewardId} placeholder")
			}
		}
	}
	s.poolByID = pools
	names := map[string]bool{}
	for _, c := range s.Channels {
		names[c.Name] = true
	}
	ids := map[string]bool{}
	for i := range s.Campaigns {
		c := &s.Campaigns[i]
		path := fmt.Sprintf("/campaigns/%d", i)
		key := c.Channel + "\x00" + c.ID
		if ids[key] {
			fail(path+"/id", fmt.Sprintf("campaign id %q is used twice in channel %s", c.ID, c.Channel))
		}
		ids[key] = true
		if !names[c.Channel] {
			fail(path+"/channel", fmt.Sprintf("no channel is named %q", c.Channel))
		}
		if len(c.Tiers) == 0 {
			fail(path, "needs a pool or tiers")
		}
		for j, t := range c.Tiers {
			if pools[t.Pool] == nil {
				p := fmt.Sprintf("%s/tiers/%d/pool", path, j)
				if t.Pool == c.Pool {
					p = path + "/pool"
				}
				fail(p, fmt.Sprintf("no pool has id %q", t.Pool))
			}
		}
		var err error
		if c.ActiveFrom != "" {
			if c.from, err = time.Parse(time.RFC3339, c.ActiveFrom); err != nil {
				fail(path+"/activeFrom", "is not an RFC 3339 time such as 2026-01-01T00:00:00+05:30")
			}
		}
		if c.ActiveTo != "" {
			if c.to, err = time.Parse(time.RFC3339, c.ActiveTo); err != nil {
				fail(path+"/activeTo", "is not an RFC 3339 time such as 2026-12-31T23:59:59+05:30")
			}
		}
		for j, cp := range c.Caps {
			if cp.Period.D() <= 0 {
				fail(fmt.Sprintf("%s/caps/%d/period", path, j), "a cap needs a positive period")
			}
		}
	}
}

// PoolByID finds a pool.
func (s *Scenario) PoolByID(id string) (*Pool, bool) {
	p, ok := s.poolByID[id]
	return p, ok
}

// CampaignsOf lists the channel's campaigns in file order.
func (s *Scenario) CampaignsOf(channel string) []*Campaign {
	var out []*Campaign
	for i := range s.Campaigns {
		if s.Campaigns[i].Channel == channel {
			out = append(out, &s.Campaigns[i])
		}
	}
	return out
}

// ActiveAt reports whether now is inside the campaign's window.
func (c *Campaign) ActiveAt(now time.Time) bool {
	if !c.from.IsZero() && now.Before(c.from) {
		return false
	}
	if !c.to.IsZero() && !now.Before(c.to) {
		return false
	}
	return true
}

// PoolFor picks the tier's pool for an amount in rupees (absent: 0).
func (c *Campaign) PoolFor(amount float64) (string, bool) {
	pool, ok := "", false
	for _, t := range c.Tiers {
		if amount >= t.MinAmount {
			pool, ok = t.Pool, true
		}
	}
	return pool, ok
}

// Match reports whether params satisfy the rule. A missing key never matches.
func (r Rule) Match(params map[string]string) bool {
	v, ok := params[r.Key]
	if !ok {
		return false
	}
	if len(r.In) > 0 && !slices.Contains(r.In, v) {
		return false
	}
	if r.Min != nil || r.Max != nil {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || (r.Min != nil && n < *r.Min) || (r.Max != nil && n > *r.Max) {
			return false
		}
	}
	return true
}

// MatchAll reports whether params satisfy every rule.
func MatchAll(rules []Rule, params map[string]string) bool {
	for _, r := range rules {
		if !r.Match(params) {
			return false
		}
	}
	return true
}
