// Package cards is the scratch-card domain: which campaigns a qualifying
// event reaches (GR-2, GR-3, BANK-1), issuing cards idempotently (GR-4,
// BANK-3), the one-shot reveal that picks the reward from the pool
// (REV-1 to REV-6), the per-user listing (LIST-1) and tracking (TRK-1).
// Every decision that must be atomic runs in one state transaction.
package cards

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/state"
)

// Sources of a card.
const (
	SourceGetReward = "GetReward"
	SourceBank      = "GetScratchCardForBank"
)

// Errors of a reveal.
var (
	ErrNoCard      = errors.New("no such card")
	ErrNotYours    = errors.New("the card belongs to another user")
	ErrCardExpired = errors.New("the card has expired")
)

// DateTimeMs is the contract's createdDateTime format (YYYY-MM-DD HH:mm:ss.SSS).
const DateTimeMs = "2006-01-02 15:04:05.000"

// Service runs card decisions against the store.
type Service struct {
	Store *state.Store
	Clock clock.PerChannel
}

// IssueRequest is one qualifying event, from GetReward or GetScratchCardForBank.
type IssueRequest struct {
	Scenario  *scenario.Scenario
	Channel   string
	VirtualID string
	Source    string
	// ExtTransactionID is the idempotency key unless NotIdempotent is
	// set, when every call is a new event.
	ExtTransactionID string
	NotIdempotent    bool
	Trigger          string
	SubTrigger       string
	CampaignID       string
	MCC              string
	Amount           *float64 // rupees
	DateAndTime      string
	Params           map[string]string
	// DeviceToken, when set, records a reward notification per issued card.
	DeviceToken string
	// DeepLink renders a card's deep link for the notification.
	DeepLink func(model.Card) string
}

// IssueResult is the outcome: Cards empty means not eligible, and Reason
// says why. Duplicate: the extTransactionId was seen before, and Cards
// are the cards it created then.
type IssueResult struct {
	Cards     []model.Card
	Duplicate bool
	Reason    string
	// otherUser: the extTransactionId was first used by another user.
	otherUser bool
}

type candidate struct {
	c    *scenario.Campaign
	pool string
}

// eligible lists the campaigns the event reaches, before caps (GR-3).
func eligible(r IssueRequest, now time.Time) ([]candidate, string) {
	var out []candidate
	var why []string
	amount := 0.0
	if r.Amount != nil {
		amount = *r.Amount
	}
	matched := false
	for _, c := range r.Scenario.CampaignsOf(r.Channel) {
		if r.Source == SourceBank {
			if c.ID != r.CampaignID {
				continue
			}
			if len(c.MCCs) > 0 && !slices.Contains(c.MCCs, r.MCC) {
				why = append(why, fmt.Sprintf("campaign %s: mcc %q is not targeted", c.ID, r.MCC))
				matched = true
				continue
			}
		} else {
			if !slices.Contains(c.Triggers, r.Trigger) {
				continue
			}
			if len(c.SubTriggers) > 0 && !slices.Contains(c.SubTriggers, r.SubTrigger) {
				why = append(why, fmt.Sprintf("campaign %s: subTriggerEventType %q is not one of its sub-triggers", c.ID, r.SubTrigger))
				matched = true
				continue
			}
		}
		matched = true
		if !c.ActiveAt(now) {
			why = append(why, fmt.Sprintf("campaign %s is not active at %s", c.ID, now.Format(time.RFC3339)))
			continue
		}
		if !scenario.MatchAll(c.Targeting, r.Params) {
			why = append(why, fmt.Sprintf("campaign %s: additionalParams do not match its targeting", c.ID))
			continue
		}
		pool, ok := c.PoolFor(amount)
		if !ok {
			why = append(why, fmt.Sprintf("campaign %s: amount %.2f is below its lowest tier", c.ID, amount))
			continue
		}
		out = append(out, candidate{c, pool})
	}
	if !matched {
		if r.Source == SourceBank {
			why = append(why, fmt.Sprintf("channel %s has no campaign %q", r.Channel, r.CampaignID))
		} else {
			why = append(why, fmt.Sprintf("channel %s has no campaign for trigger %q", r.Channel, r.Trigger))
		}
	}
	return out, strings.Join(why, "; ")
}

// Issue creates the cards of one event, or, for a duplicate, returns the
// cards an earlier event with the same extTransactionId created, in one
// write transaction.
func (s *Service) Issue(r IssueRequest) (IssueResult, error) {
	now := clock.NowFor(s.Clock, r.Channel)
	cands, why := eligible(r, now)
	var res IssueResult
	err := s.Store.UpdateCards(r.Channel, func(tx *state.CardTx) error {
		res = IssueResult{}
		if !r.NotIdempotent {
			ids, ok, err := tx.Issued(r.Source, r.ExtTransactionID)
			if err != nil {
				return err
			}
			if ok {
				res.Duplicate = true
				for _, id := range ids {
					c, found, err := tx.Card(id)
					if err != nil {
						return err
					}
					if found && c.VirtualID != r.VirtualID {
						// Never hand one user's cards (and, once revealed,
						// their coupon codes) to another.
						res = IssueResult{otherUser: true}
						return nil
					}
					if found {
						res.Cards = append(res.Cards, c)
					}
				}
				return nil
			}
		}
		reasons := []string{}
		if why != "" {
			reasons = append(reasons, why)
		}
		var ids []uint64
		for _, cand := range cands {
			c := cand.c
			ev, err := tx.CapEvents(c.ID, r.VirtualID)
			if err != nil {
				return err
			}
			ev, capped := applyCaps(c.Caps, ev, now)
			if capped != "" {
				reasons = append(reasons, "campaign "+c.ID+": "+capped)
				continue
			}
			if len(c.Caps) > 0 {
				if err := tx.SetCapEvents(c.ID, r.VirtualID, append(ev, now.UnixNano())); err != nil {
					return err
				}
			}
			for range c.CardsPerEvent {
				card, err := issueCard(tx, r, cand, now)
				if err != nil {
					return err
				}
				ids = append(ids, card.RewardID)
				res.Cards = append(res.Cards, card)
			}
		}
		res.Reason = strings.Join(reasons, "; ")
		if len(ids) == 0 || r.NotIdempotent {
			return nil
		}
		return tx.SetIssued(r.Source, r.ExtTransactionID, ids)
	})
	if err == nil && res.otherUser {
		// Idempotency is per extTransactionId, and the cards are not theirs.
		return IssueResult{}, refusal.New(refusal.Conflict, "extTransactionId belongs to another user's event: extTransactionId %q was first used by another user", r.ExtTransactionID)
	}
	return res, err
}

// issueCard creates one card of cand's campaign for r, and its push
// notification when r names a device.
func issueCard(tx *state.CardTx, r IssueRequest, cand candidate, now time.Time) (model.Card, error) {
	c := cand.c
	card := model.Card{
		Channel: r.Channel, VirtualID: r.VirtualID, CampaignID: c.ID, Pool: cand.pool,
		Source: r.Source, ExtTransactionID: r.ExtTransactionID, Trigger: r.Trigger, SubTrigger: r.SubTrigger,
		Amount: r.Amount, DateAndTime: r.DateAndTime, Params: r.Params, CreatedAt: now,
	}
	if d := c.CardExpiry.D(); d > 0 {
		card.ExpiresAt = now.Add(d)
	}
	if err := tx.InsertCard(&card); err != nil {
		return model.Card{}, err
	}
	if r.DeviceToken != "" {
		n := model.Notification{
			Channel: r.Channel, DeviceToken: r.DeviceToken, VirtualID: r.VirtualID, RewardID: card.RewardID,
			CampaignID: c.ID, ExtTransactionID: r.ExtTransactionID, Title: notificationTitle(c), At: now,
		}
		if r.DeepLink != nil {
			n.DeepLink = r.DeepLink(card)
		}
		if err := tx.AddNotification(&n); err != nil {
			return model.Card{}, err
		}
	}
	return card, nil
}

func notificationTitle(c *scenario.Campaign) string {
	if c.Notification != "" {
		return c.Notification
	}
	return "You have won a scratch card!"
}

// applyCaps drops events older than the longest period and tells which
// cap, if any, the user has reached at now.
func applyCaps(caps []scenario.Cap, ev []int64, now time.Time) ([]int64, string) {
	if len(caps) == 0 {
		return ev, ""
	}
	var longest time.Duration
	for _, c := range caps {
		longest = max(longest, c.Period.D())
	}
	cut := now.Add(-longest).UnixNano()
	kept := ev[:0]
	for _, t := range ev {
		if t > cut {
			kept = append(kept, t)
		}
	}
	for _, c := range caps {
		from := now.Add(-c.Period.D()).UnixNano()
		n := 0
		for _, t := range kept {
			if t > from {
				n++
			}
		}
		if n >= c.Max {
			return kept, fmt.Sprintf("frequency cap of %d per %s reached", c.Max, c.Period.D())
		}
	}
	return kept, ""
}

// Reveal is the one-shot reveal (REV-1 to REV-4, REV-6): the first call
// picks the reward and stores it; later calls return the card with
// first false. Everything happens in one write transaction.
func (s *Service) Reveal(sc *scenario.Scenario, channel, user string, id uint64) (card model.Card, first bool, err error) {
	now := clock.NowFor(s.Clock, channel)
	// A refusal is an outcome, not a transaction error: returning it from
	// the batched function would roll back and re-run its whole group.
	var refused error
	err = s.Store.UpdateCards(channel, func(tx *state.CardTx) error {
		first, refused = false, nil
		c, ok, err := tx.Card(id)
		if err != nil {
			return err
		}
		card = c
		switch {
		case !ok:
			refused = ErrNoCard
		case c.VirtualID != user:
			refused = ErrNotYours
		case c.Revealed():
		case !c.ExpiresAt.IsZero() && !now.Before(c.ExpiresAt):
			refused = ErrCardExpired
		default:
			reward, err := pick(sc, tx, c, now)
			if err != nil {
				return err
			}
			c.Reward = &reward
			card, first = c, true
			return tx.SaveReveal(c)
		}
		return nil
	})
	if err == nil && refused != nil {
		return model.Card{}, false, refused
	}
	return card, first, err
}

// BetterLuck is the fallback of a pool that names none.
var BetterLuck = model.Offer{
	OfferTitle:  "Better luck next time",
	Description: "No reward this time. Keep transacting to win more scratch cards.",
	CouponType:  "NONE",
}

// pick chooses the reward of card from its pool (REV-6): entries whose
// targeting matches the card's stored additionalParams and that have
// stock left, weighted; the draw is a hash of the scenario seed, the
// channel and the rewardId, so a request sequence replays identically.
func pick(sc *scenario.Scenario, tx *state.CardTx, c model.Card, now time.Time) (model.Reward, error) {
	r := model.Reward{RevealedAt: now}
	pool, ok := sc.PoolByID(c.Pool)
	if !ok {
		r.Offer, r.Fallback, r.EntryID = BetterLuck, true, "fallback"
		return r, nil
	}
	type avail struct {
		e    *scenario.PoolEntry
		used uint64
	}
	var list []avail
	total := 0
	for i := range pool.Entries {
		e := &pool.Entries[i]
		if !scenario.MatchAll(e.Targeting, c.Params) {
			continue
		}
		used := tx.StockUsed(pool.ID, e.ID)
		if limit, ok := entryLimit(e); ok && used >= limit {
			continue
		}
		list = append(list, avail{e, used})
		total += weight(e)
	}
	if total == 0 {
		r.Offer, r.Fallback, r.EntryID = BetterLuck, true, "fallback"
		if pool.Fallback != nil {
			r.Offer = *pool.Fallback
		}
		return r, nil
	}
	draw := int(draw(sc.Seed, sc.DrawKey(c.Channel), c.RewardID, "pick") % uint64(total))
	var chosen avail
	for _, a := range list {
		if draw < weight(a.e) {
			chosen = a
			break
		}
		draw -= weight(a.e)
	}
	e := chosen.e
	r.Offer, r.EntryID = e.Offer, e.ID
	switch {
	case len(e.CouponCodes) > 0:
		r.CouponCode = e.CouponCodes[chosen.used]
	case e.CouponPattern != "":
		r.CouponCode = expand(e.CouponPattern, chosen.used+1, sc.Seed, sc.DrawKey(c.Channel), c)
	}
	if d := e.ValidFor.D(); d > 0 && r.EndDate == "" {
		r.EndDate = now.Add(d).In(sc.Location).Format("2006-01-02 15:04:05")
	}
	return r, tx.SetStockUsed(pool.ID, e.ID, chosen.used+1)
}

func weight(e *scenario.PoolEntry) int { return max(e.Weight, 1) }

// entryLimit is how often an entry can be handed out: its stock, capped
// by the length of its coupon list.
func entryLimit(e *scenario.PoolEntry) (uint64, bool) {
	limit, ok := uint64(0), false
	if e.Stock != nil {
		limit, ok = uint64(max(*e.Stock, 0)), true
	}
	if n := uint64(len(e.CouponCodes)); n > 0 && (!ok || n < limit) {
		limit, ok = n, true
	}
	return limit, ok
}

func draw(seed int64, channel string, id uint64, purpose string) uint64 {
	h := sha256.Sum256(fmt.Appendf(nil, "%d/%s/%d/%s", seed, channel, id, purpose))
	return binary.BigEndian.Uint64(h[:8])
}

const codeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// expand fills a coupon pattern: {seq} or {seq:N} is the entry's
// hand-out count (zero-padded to N), {rand:N} N seeded characters,
// {rewardId} the card's id; drawKey is the channel's draw key.
func expand(pattern string, seq uint64, seed int64, drawKey string, c model.Card) string {
	var b strings.Builder
	for i := 0; i < len(pattern); {
		j := strings.IndexByte(pattern[i:], '{')
		if j < 0 {
			b.WriteString(pattern[i:])
			break
		}
		b.WriteString(pattern[i : i+j])
		i += j
		k := strings.IndexByte(pattern[i:], '}')
		if k < 0 {
			b.WriteString(pattern[i:])
			break
		}
		name, arg, _ := strings.Cut(pattern[i+1:i+k], ":")
		n := scenario.PatternWidth(arg)
		switch name {
		case "seq":
			b.WriteString(fmt.Sprintf("%0*d", n, seq))
		case "rand":
			h := sha256.Sum256(fmt.Appendf(nil, "%d/%s/%d/code", seed, drawKey, c.RewardID))
			for x := range n {
				b.WriteByte(codeAlphabet[h[x%len(h)]%byte(len(codeAlphabet))])
			}
		case "rewardId":
			b.WriteString(strconv.FormatUint(c.RewardID, 10))
		default:
			b.WriteString(pattern[i : i+k+1])
		}
		i += k + 1
	}
	return b.String()
}

// List returns a page of the user's cards, unscratched first, and the total (LIST-1).
func (s *Service) List(channel, user string, offset, limit int) (cards []model.Card, total int, err error) {
	err = s.Store.ViewCards(channel, func(tx *state.CardTx) error {
		cards, total, err = tx.UserCards(user, offset, limit)
		return err
	})
	return cards, total, err
}

// Card reads one card.
func (s *Service) Card(channel string, id uint64) (c model.Card, ok bool, err error) {
	err = s.Store.ViewCards(channel, func(tx *state.CardTx) error {
		c, ok, err = tx.Card(id)
		return err
	})
	return c, ok, err
}

// Track records a tracking GET of an existing card; ok false if there is no such card.
func (s *Service) Track(channel string, ev model.TrackEvent) (ok bool, err error) {
	ev.At = clock.NowFor(s.Clock, channel)
	err = s.Store.UpdateCards(channel, func(tx *state.CardTx) error {
		_, ok, err = tx.Card(ev.RewardID)
		if err != nil || !ok {
			return err
		}
		return tx.AddTrack(ev)
	})
	return ok, err
}

// Tracks lists a card's tracking GETs.
func (s *Service) Tracks(channel string, id uint64) (ev []model.TrackEvent, err error) {
	err = s.Store.ViewCards(channel, func(tx *state.CardTx) error {
		ev, err = tx.Tracks(id)
		return err
	})
	return ev, err
}

// Notifications lists the recorded reward pushes of a channel.
func (s *Service) Notifications(channel, deviceToken string) (out []model.Notification, err error) {
	err = s.Store.ViewCards(channel, func(tx *state.CardTx) error {
		out, err = tx.Notifications(deviceToken)
		return err
	})
	return out, err
}
