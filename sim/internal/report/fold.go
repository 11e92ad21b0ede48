package report

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
)

// Source reads a selection of the journal in journal order, calling fn
// with each entry until fn returns false. The report reads it twice (the
// first pass learns what a later entry tells about an earlier one: which
// credential is whose, which trackLink was fired), keeping only per-rule
// state between entries, so its memory is bounded by the journal's page
// and by counts (channels, claims, cards), not by the bodies it reads.
type Source func(fn func(e journal.Entry) bool) error

// Entries is a Source over entries already in memory.
func Entries(es []journal.Entry) Source {
	return func(fn func(journal.Entry) bool) error {
		for _, e := range es {
			if !fn(e) {
				break
			}
		}
		return nil
	}
}

// Build runs every rule over entries. Entries must be in journal order.
func Build(entries []journal.Entry, o Options) Report {
	r, _ := BuildFrom(Entries(entries), o) // a slice source never fails
	return r
}

// BuildFrom runs every rule over what read selects, as a fold.
func BuildFrom(read Source, o Options) (Report, error) {
	if o.RefTokenPerHour <= 0 {
		o.RefTokenPerHour = DefaultRefTokenPerHour
	}
	if o.SlowWebhook <= 0 {
		o.SlowWebhook = DefaultSlowWebhook
	}
	if o.RetryWindow <= 0 {
		o.RetryWindow = DefaultRetryWindow
	}
	if o.TerminalWindow <= 0 {
		o.TerminalWindow = DefaultTerminalWindow
	}
	f := newFold(o)
	if err := read(func(e journal.Entry) bool { f.learn(&e); return true }); err != nil {
		return Report{}, err
	}
	if err := read(func(e journal.Entry) bool {
		if f.mine(&e) {
			f.entry(&e)
		}
		return true
	}); err != nil {
		return Report{}, err
	}
	f.finish()

	r := Report{Channel: o.Channel, Findings: []Finding{}, Totals: map[string]int{}, Checked: Rules, NotCheckable: NotCheckable, Exchanges: f.exchanges}
	if o.NoCardsRendered {
		r.Checked = slices.DeleteFunc(slices.Clone(Rules), func(x Rule) bool { return x.ID == trackLinkRule })
		r.Skipped = []Skip{{trackLinkRule, "the service renders no cards (no-cards-rendered): the app that shows them fires the trackLink impressions (TRK-1)"}}
	}
	for _, rule := range r.Checked {
		if got := f.c.byID[rule.ID]; got != nil {
			r.Findings = append(r.Findings, *got)
			r.Totals[string(got.Severity)]++
		}
	}
	return r, nil
}

// fold is the rules' state between entries.
type fold struct {
	o         Options
	c         *collector
	exchanges int
	// First pass.
	owner map[string]string // credential -> channel; "\x00" shared, "\x01" another's
	fired map[string]bool   // path?query of every GET, any channel
	// Second pass, per rule.
	refFetches     map[string][]*journal.Entry // TOK-5: channel -> slim fetches
	firstOffer     map[string]string           // CPN-5: channel + extTransactionId -> offer
	timedOutClaim  map[string]claim            // CPN-4: channel + user + offer -> claim awaiting its retry
	refused        map[string]claim            // CPN-3: channel + user + offer -> the claim refused for good
	refusedCode    map[string]string
	cardsSeen      map[string]bool        // TRK-1
	revealed       map[string]uint64      // REV-2: card -> seq of the reveal
	expiredTold    map[string]uint64      // TOK-4: credential -> seq of the first refusal
	firstGetReward map[string]firstCall   // GR-4: channel + extTransactionId
	firstCoupon    map[string]firstCall   // CPN-5: channel + offer + extTransactionId
	misSigned      map[string]misSigned   // ENV-3: credential fingerprint -> the mis-signed answer that handed it out
	limited        map[string]limitedCall // CAP-1: channel + endpoint + user -> the refusal awaiting its retry
}

// firstCall is what a duplicate is compared with: the first call's
// sequence number and the part of its request the rule compares.
type firstCall struct {
	seq   uint64
	body  map[string]any // top-level field -> digest of its value
	coins string
}

// digests replaces each top-level value by a digest of its JSON (maps
// marshal with sorted keys), so a remembered call costs a few bytes a
// field, whatever its size.
func digests(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		b, _ := json.Marshal(v)
		out[k] = sha256.Sum256(b)
	}
	return out
}

func newFold(o Options) *fold {
	return &fold{o: o, c: &collector{byID: map[string]*Finding{}},
		owner: map[string]string{}, fired: map[string]bool{},
		refFetches: map[string][]*journal.Entry{}, firstOffer: map[string]string{}, timedOutClaim: map[string]claim{},
		refused: map[string]claim{}, refusedCode: map[string]string{}, cardsSeen: map[string]bool{},
		revealed: map[string]uint64{}, expiredTold: map[string]uint64{},
		firstGetReward: map[string]firstCall{}, firstCoupon: map[string]firstCall{}, misSigned: map[string]misSigned{},
		limited: map[string]limitedCall{}}
}

// learn is the first pass: which credentials only the report's channel
// carried (a call that names no channel is attributed by them), and
// which tracking URLs were fired (looked up among all entries: a report of one channel still sees them).
func (f *fold) learn(e *journal.Entry) {
	if e.Kind == journal.KindExchange && e.Method == "GET" {
		f.fired[e.Path+"?"+e.Query] = true
	}
	ch := f.o.Channel
	if ch == "" || (e.Channel == "" && e.ChannelID == "") {
		return
	}
	mine := e.Channel == ch || e.ChannelID == ch
	for _, cr := range credentials(e) {
		if was, ok := f.owner[cr]; ok && (was == ch) != mine {
			f.owner[cr] = "\x00" // seen with several channels: attributes nothing
			continue
		}
		if mine {
			f.owner[cr] = ch
		} else if _, ok := f.owner[cr]; !ok {
			f.owner[cr] = "\x01"
		}
	}
}

// mine selects the entries of the report's channel (name or CHANNELID):
// those that name it, and those that name none but carry a credential
// only that channel's calls carried.
func (f *fold) mine(e *journal.Entry) bool {
	ch := f.o.Channel
	switch {
	case ch == "" || e.Channel == ch || e.ChannelID == ch:
		return true
	case e.Channel == "" && e.ChannelID == "":
		for _, cr := range credentials(e) {
			if f.owner[cr] == ch {
				return true
			}
		}
	}
	return false
}

// entry runs every rule on one entry of the channel.
func (f *fold) entry(e *journal.Entry) {
	if e.Kind == journal.KindExchange {
		f.exchanges++
	}
	f.perEntry(e)
	if endpointIs(e, "getSecuredReferenceToken") && e.Status == 200 && len(e.Response.BDATA) > 0 {
		f.refFetches[e.Channel] = append(f.refFetches[e.Channel], slim(e))
	}
	if cl, ok := claimOf(e); ok {
		f.couponClaim(cl)
		f.claimAfterTerminal(cl, e)
	}
	f.secondReveal(e)
	f.expiredToken(e)
	f.conflictingGetReward(e)
	f.conflictingCoupon(e)
	f.trackLinks(e)
	f.unverifiedAnswer(e)
	f.limitRetry(e)
}

// perEntry runs the rules that look at one exchange at a time.
func (f *fold) perEntry(e *journal.Entry) {
	c := f.c
	if e.Kind == journal.KindWebhook {
		webhook(c, e, f.o)
		return
	}
	if contains(e.Reason, reasonDecodedJSON) {
		c.add("sign-over-decoded-json", e, fmt.Sprintf("%s answered %q", e.Path, e.Reason))
	}
	if e.Status == 401 && contains(e.Reason, reasonWrongKind) {
		c.add("wrong-token-type", e, fmt.Sprintf("%s %s refused the token: %s", e.Method, e.Path, e.Reason))
	}
	if endpointIs(e, "RegisterEvent") || endpointIs(e, "ExitEvent") {
		c.add("not-available-endpoint", e, fmt.Sprintf("%s %s answered HTTP %d", e.Method, e.Path, e.Status))
	}
	if endpointIs(e, "GetReward") {
		getReward(c, e)
	}
	f.clientTimeout(e)
}

// clientTimeout is a client that hung up sooner than the p99 of the
// latency profile governing the call: its timeout cuts the tail.
func (f *fold) clientTimeout(e *journal.Entry) {
	if !e.ClientGone || f.o.LatencyP99 == nil || e.Endpoint == "" {
		return
	}
	p99 := f.o.LatencyP99(e.Endpoint, e.Channel)
	if waited := time.Duration(e.LatencyMs * float64(time.Millisecond)); p99 > 0 && waited < p99 {
		f.c.add("client-timeout-below-latency-p99", e, fmt.Sprintf("the client hung up on %s after %v; the profile's p99 is %v", e.Endpoint, waited.Round(time.Millisecond), p99))
	}
}

// finish runs what needs every call of a kind: TOK-5, CAP-1.
func (f *fold) finish() {
	f.refTokens()
	f.limitNotRetried()
}

// refTokens is TOK-5: more than RefTokenPerHour successful fetches of the
// reference token by one channel inside any 60 minutes of simulated time.
// Each fetch beyond the threshold counts once.
func (f *fold) refTokens() {
	for _, list := range f.refFetches {
		sortByAt(list)
		lo := 0
		for hi, e := range list {
			for e.At.Sub(list[lo].At) >= time.Hour {
				lo++
			}
			if n := hi - lo + 1; n > f.o.RefTokenPerHour {
				f.c.add("reference-token-per-request", e, fmt.Sprintf("channel %s fetched the reference token %d times within an hour (threshold %d)", e.Channel, n, f.o.RefTokenPerHour))
			}
		}
	}
}

// couponClaim runs CPN-5 (one extTransactionId across offers) and CPN-4
// (a retry after a timeout with a new extTransactionId: the next claim of
// the same user and offer).
func (f *fold) couponClaim(cl claim) {
	k := cl.channel + "\x00" + cl.extTxID
	if prev, ok := f.firstOffer[k]; !ok {
		f.firstOffer[k] = cl.offer
	} else if prev != cl.offer {
		f.c.add("ext-transaction-id-across-offers", cl.e, fmt.Sprintf("extTransactionId %q was used for offer %q and then offer %q", cl.extTxID, prev, cl.offer))
	}
	u := cl.channel + "\x00" + cl.virtualID + "\x00" + cl.offer
	if prev, ok := f.timedOutClaim[u]; ok {
		delete(f.timedOutClaim, u)
		if cl.e.At.Sub(prev.e.At) <= f.o.RetryWindow && cl.extTxID != prev.extTxID {
			f.c.add("retry-with-new-ext-transaction-id", cl.e, fmt.Sprintf("claim %q timed out; the retry for offer %q used %q", prev.extTxID, prev.offer, cl.extTxID))
		}
	}
	if cl.timedOut {
		f.timedOutClaim[u] = cl
	}
}

// claimAfterTerminal flags a claim for a (channel, user, offer) made with
// a new extTransactionId after an earlier claim was answered with a
// terminal errorCode.
func (f *fold) claimAfterTerminal(cl claim, e *journal.Entry) {
	k := cl.channel + "\x00" + cl.virtualID + "\x00" + cl.offer
	code := jsonText(body(e.Response.Body)["errorCode"])
	if first, ok := f.refused[k]; ok && cl.extTxID != first.extTxID {
		switch {
		case e.Status == 200 && code == "" && first.e.Fault == "":
			// The claim was served: the answer was not final after all
			// (stock came back), so neither is this claim a finding. An
			// injected refusal excuses nothing: no stock ran out, so no
			// restock came; the client retried a final answer.
			delete(f.refused, k)
			return
		case cl.e.At.Sub(first.e.At) > f.o.TerminalWindow:
			delete(f.refused, k) // long after: a restock may have come between
		default:
			f.c.add("claim-after-terminal-error", cl.e, fmt.Sprintf("offer %q answered %s to claim %q (exchange %d); claim %q was sent anyway, %s later",
				cl.offer, f.refusedCode[k], first.extTxID, first.e.Seq, cl.extTxID, cl.e.At.Sub(first.e.At).Round(time.Second)))
			return
		}
	}
	if terminalCouponErrors[code] {
		if _, ok := f.refused[k]; !ok {
			f.refused[k], f.refusedCode[k] = cl, code
		}
	}
}

// trackLinkRule is TRK-1's rule, which Options.NoCardsRendered skips.
const trackLinkRule = "tracklink-never-fired"

// trackLinks is TRK-1: every card listed in an answer (an object with a
// trackLink array) should see at least one of its trackLink URLs fired
// as a GET (at any time: the first pass collected them).
func (f *fold) trackLinks(e *journal.Entry) {
	if e.Kind != journal.KindExchange || e.Status != 200 || f.o.NoCardsRendered {
		return
	}
	for _, raw := range []json.RawMessage{e.Response.Body, e.Response.BDATA} {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		walkCards(v, func(id string, links []string) {
			if f.cardsSeen[id] {
				return
			}
			f.cardsSeen[id] = true
			for _, l := range links {
				if u, err := url.Parse(l); err == nil && f.fired[u.Path+"?"+u.RawQuery] {
					return
				}
			}
			f.c.add(trackLinkRule, e, fmt.Sprintf("card %s was listed with %d trackLink URL(s); none was fired", id, len(links)))
		})
	}
}

// Rules on a request sent again (issue 16): a second reveal of one card
// (REV-2), a GetReward duplicate whose body differs (GR-4), a coupon claim
// retried with another coinsUsed (CPN-5).

// secondReveal is REV-2: a FetchRewardInfo of a card (channel, user,
// rewardId) that an earlier FetchRewardInfo already revealed, or whose
// answer says it was revealed before; each such exchange counts once.
func (f *fold) secondReveal(e *journal.Entry) {
	if !endpointIs(e, "FetchRewardInfo") {
		return
	}
	req := body(e.Request.BDATA)
	id := jsonText(req["rewardId"])
	if id == "" {
		return
	}
	k := e.Channel + "\x00" + jsonText(req["virtualId"]) + "\x00" + id
	ans := body(e.Response.BDATA)
	fresh := e.Status == 200 && ans["status"] == true
	// A second reveal never answers with the reward (either reading of
	// switches.cards.secondReveal): a fresh success is a new card of
	// the same id, after a reset (a recording replayed twice).
	if seq, ok := f.revealed[k]; ok && !fresh {
		f.c.add("second-reveal", e, fmt.Sprintf("card %s was revealed again (first revealed by exchange %d)", id, seq))
		return
	}
	// The first reveal may be outside the journal's window (or made
	// through the microsite): the answer itself then tells.
	if secondReveal(e) {
		f.c.add("second-reveal", e, "FetchRewardInfo answered that the card was revealed before")
		return
	}
	if fresh {
		f.revealed[k] = e.Seq
	}
}

// expiredToken flags every call refused because its token had expired;
// one whose token was already refused as expired says so.
func (f *fold) expiredToken(e *journal.Entry) {
	if e.Kind != journal.KindExchange || e.Status != 401 || !contains(strings.ToLower(e.Reason), reasonExpired) || !contains(e.Reason, "token") {
		return
	}
	cred := e.Request.Header["Authorization"]
	if seq, ok := f.expiredTold[cred]; ok && cred != "" {
		f.c.add("expired-token", e, fmt.Sprintf("%s %s sent a token already refused as expired in exchange %d", e.Method, e.Path, seq))
		return
	}
	if cred != "" {
		f.expiredTold[cred] = e.Seq
	}
	f.c.add("expired-token", e, fmt.Sprintf("%s %s was refused: %s", e.Method, e.Path, e.Reason))
}

// conflictingGetReward is GR-4: a GetReward whose extTransactionId
// already created cards, sent with a different body. The service answers
// the first cards and ignores the change, so the publisher's new amount,
// trigger or user is silently lost.
func (f *fold) conflictingGetReward(e *journal.Entry) {
	if !endpointIs(e, "GetReward") {
		return
	}
	m := plainBody(e.Request.Body)
	tx := jsonText(m["extTransactionId"])
	if tx == "" {
		return
	}
	k := e.Channel + "\x00" + tx
	if prev, ok := f.firstGetReward[k]; ok {
		if diff := differingKeys(prev.body, digests(m)); len(diff) > 0 {
			f.c.add("get-reward-conflicting-duplicate", e, fmt.Sprintf("extTransactionId %q was sent again with a different %s (first sent in exchange %d)", tx, strings.Join(diff, ", "), prev.seq))
		}
		return
	}
	if ans := plainBody(e.Response.Body); (e.Status == 200 && ans["status"] == true) || e.ClientGone {
		f.firstGetReward[k] = firstCall{seq: e.Seq, body: digests(m)}
	}
}

// conflictingCoupon is CPN-5: a fetchCouponCode retried with the same
// extTransactionId and offer but another coinsUsed. The retry gets the
// first coupon (or a duplicate rejection), never the new price.
func (f *fold) conflictingCoupon(e *journal.Entry) {
	if !endpointIs(e, "fetchCouponCode") {
		return
	}
	m := body(e.Request.Body)
	tx, offer := jsonText(m["extTransactionId"]), jsonText(m["offerId"])
	if tx == "" {
		return
	}
	k := e.Channel + "\x00" + offer + "\x00" + tx
	prev, ok := f.firstCoupon[k]
	now := jsonText(m["coinsUsed"])
	if !ok {
		f.firstCoupon[k] = firstCall{seq: e.Seq, coins: now}
		return
	}
	if prev.coins != now {
		f.c.add("coupon-claim-conflicting-duplicate", e, fmt.Sprintf("extTransactionId %q on offer %q was claimed with coinsUsed %s, then %s", tx, offer, prev.coins, now))
	}
}
