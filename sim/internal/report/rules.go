package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
)

// Reasons the simulator's endpoints put in X-Rewardsim-Reason that the
// report reads.
const (
	reasonDecodedJSON = "SIGN was made over the decoded JSON"
	reasonWrongKind   = "wrong token type"
)

// perEntry runs the rules that look at one exchange at a time.
func perEntry(c *collector, es []*journal.Entry, o Options) {
	for _, e := range es {
		if e.Kind == journal.KindWebhook {
			webhook(c, e, o)
			continue
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
	}
}

// secondReveal reads either answer of a repeated reveal (REV-2): the bare
// failure "Reward Already Revealed!", or status false with
// isAlreadyRewarded true (switches.cards.secondReveal: status-false).
func secondReveal(e *journal.Entry) bool {
	if m := body(e.Response.Body); m != nil && m["ERRORSTRING"] == "Reward Already Revealed!" {
		return true
	}
	m := body(e.Response.BDATA)
	return m != nil && m["status"] == false && m["isAlreadyRewarded"] == true
}

// body decodes a JSON object body keeping numbers as written.
func body(raw json.RawMessage) map[string]any {
	if len(raw) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var m map[string]any
	if d.Decode(&m) != nil {
		return nil
	}
	return m
}

func getReward(c *collector, e *journal.Entry) {
	m := body(e.Request.Body)
	if m == nil {
		return
	}
	switch ap := m["additionalParams"].(type) {
	case map[string]any, []any:
		c.add("nested-additional-params", e, fmt.Sprintf("additionalParams was a JSON %s, not a string", kind(ap)))
	}
	if v, ok := m["dateandtime"]; ok && !validDateAndTime(v) {
		c.add("dateandtime-format", e, fmt.Sprintf("dateandtime was %s", show(v)))
	}
	if v, ok := m["amount"]; ok && v != nil && !validAmount(v) {
		c.add("amount-format", e, fmt.Sprintf("amount was %s", show(v)))
	}
}

func kind(v any) string {
	if _, ok := v.([]any); ok {
		return "array"
	}
	return "object"
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// validDateAndTime: a string of 14 digits that is a real DDMMYYYYHHMMSS time.
func validDateAndTime(v any) bool {
	s, ok := v.(string)
	if !ok || len(s) != 14 {
		return false
	}
	_, err := time.Parse("02012006150405", s)
	return err == nil
}

// validAmount: a JSON number, plain decimal notation, at most two decimals.
func validAmount(v any) bool {
	n, ok := v.(json.Number)
	if !ok {
		return false
	}
	s := string(n)
	if strings.ContainsAny(s, "eE") {
		return false
	}
	if _, frac, ok := strings.Cut(s, "."); ok && len(frac) > 2 {
		return false
	}
	return true
}

// refTokens is TOK-5: more than RefTokenPerHour successful fetches of the
// reference token by one channel inside any 60 minutes of simulated time.
// Each fetch beyond the threshold counts once.
func refTokens(c *collector, es []*journal.Entry, o Options) {
	byChannel := map[string][]*journal.Entry{}
	for _, e := range es {
		if endpointIs(e, "getSecuredReferenceToken") && e.Status == 200 && len(e.Response.BDATA) > 0 {
			byChannel[e.Channel] = append(byChannel[e.Channel], e)
		}
	}
	for _, list := range byChannel {
		sortByAt(list)
		lo := 0
		for hi, e := range list {
			for e.At.Sub(list[lo].At) >= time.Hour {
				lo++
			}
			if n := hi - lo + 1; n > o.RefTokenPerHour {
				c.add("reference-token-per-request", e, fmt.Sprintf("channel %s fetched the reference token %d times within an hour (threshold %d)", e.Channel, n, o.RefTokenPerHour))
			}
		}
	}
}

// claim is the part of a fetchCouponCode request the rules read.
type claim struct {
	e                                  *journal.Entry
	channel, virtualID, offer, extTxID string
}

func claims(es []*journal.Entry) []claim {
	var out []claim
	for _, e := range es {
		if !endpointIs(e, "fetchCouponCode") {
			continue
		}
		m := body(e.Request.Body)
		str := func(k string) string { s, _ := m[k].(string); return s }
		if m == nil || str("extTransactionId") == "" {
			continue
		}
		out = append(out, claim{e, e.Channel, str("virtualId"), str("offerId"), str("extTransactionId")})
	}
	return out
}

// timedOut: the caller gave up, the connection was dropped, or an
// injected fault withheld the answer.
func timedOut(e *journal.Entry) bool {
	return e.ClientGone || e.Dropped || contains(e.Fault, "timeout") || contains(e.Fault, "drop")
}

// couponClaims runs CPN-5 (one extTransactionId across offers) and CPN-4
// (a retry after a timeout with a new extTransactionId).
func couponClaims(c *collector, es []*journal.Entry, o Options) {
	cs := claims(es)
	firstOffer := map[string]string{}
	for _, cl := range cs {
		k := cl.channel + "\x00" + cl.extTxID
		if prev, ok := firstOffer[k]; !ok {
			firstOffer[k] = cl.offer
		} else if prev != cl.offer {
			c.add("ext-transaction-id-across-offers", cl.e, fmt.Sprintf("extTransactionId %q was used for offer %q and then offer %q", cl.extTxID, prev, cl.offer))
		}
	}
	for i, cl := range cs {
		if !timedOut(cl.e) {
			continue
		}
		for _, next := range cs[i+1:] {
			if next.channel != cl.channel || next.virtualID != cl.virtualID || next.offer != cl.offer {
				continue
			}
			if next.e.At.Sub(cl.e.At) <= o.RetryWindow && next.extTxID != cl.extTxID {
				c.add("retry-with-new-ext-transaction-id", next.e, fmt.Sprintf("claim %q timed out; the retry for offer %q used %q", cl.extTxID, cl.offer, next.extTxID))
			}
			break
		}
	}
}

// trackLinks is TRK-1: every card listed in an answer (an object with a
// trackLink array) should see at least one of its trackLink URLs fired
// as a GET later on. Firing GETs carry no channel, so they are looked up
// among all entries.
func trackLinks(c *collector, mine []*journal.Entry, all []journal.Entry) {
	fired := map[string]bool{}
	for i := range all {
		if e := &all[i]; e.Kind == journal.KindExchange && e.Method == "GET" {
			fired[e.Path+"?"+e.Query] = true
		}
	}
	seen := map[string]bool{}
	for _, e := range mine {
		if e.Kind != journal.KindExchange || e.Status != 200 {
			continue
		}
		for _, raw := range []json.RawMessage{e.Response.Body, e.Response.BDATA} {
			var v any
			if json.Unmarshal(raw, &v) != nil {
				continue
			}
			walkCards(v, func(id string, links []string) {
				if seen[id] {
					return
				}
				seen[id] = true
				for _, l := range links {
					if u, err := url.Parse(l); err == nil && fired[u.Path+"?"+u.RawQuery] {
						return
					}
				}
				c.add("tracklink-never-fired", e, fmt.Sprintf("card %s was listed with %d trackLink URL(s); none was fired", id, len(links)))
			})
		}
	}
}

// walkCards calls fn for every object carrying a non-empty trackLink
// array; the card's identity is its rewardId, else its first link.
func walkCards(v any, fn func(id string, links []string)) {
	switch x := v.(type) {
	case map[string]any:
		if arr, ok := x["trackLink"].([]any); ok && len(arr) > 0 {
			var links []string
			for _, l := range arr {
				if s, ok := l.(string); ok {
					links = append(links, s)
				}
			}
			id := ""
			switch r := x["rewardId"].(type) {
			case float64:
				id = strconv.FormatFloat(r, 'f', -1, 64)
			case string:
				id = r
			}
			if id == "" && len(links) > 0 {
				id = links[0]
			}
			if len(links) > 0 {
				fn(id, links)
			}
		}
		for _, c := range x {
			walkCards(c, fn)
		}
	case []any:
		for _, c := range x {
			walkCards(c, fn)
		}
	}
}

// webhook is WH-2: an attempt must get a JSON object with status "OK",
// quickly.
func webhook(c *collector, e *journal.Entry, o Options) {
	var ack struct {
		Status any `json:"status"`
	}
	switch {
	case e.Error != "":
		c.add("webhook-not-ok", e, "no answer: "+e.Error)
	case e.Status < 200 || e.Status > 299:
		c.add("webhook-not-ok", e, fmt.Sprintf("the receiver answered HTTP %d", e.Status))
	case json.Unmarshal(e.Response.Body, &ack) != nil || ack.Status != "OK":
		got := string(e.Response.Body)
		if got == "" {
			got = e.Response.Text
		}
		c.add("webhook-not-ok", e, fmt.Sprintf(`the receiver answered %q, not a JSON object with status "OK"`, got))
	}
	if time.Duration(e.LatencyMs*float64(time.Millisecond)) > o.SlowWebhook {
		c.add("webhook-slow", e, fmt.Sprintf("the receiver took %.0f ms (threshold %s)", e.LatencyMs, o.SlowWebhook))
	}
}

// Rules on a request sent again (issue 16): a second reveal of one card
// (REV-2), a GetReward duplicate whose body differs (GR-4), a coupon claim
// retried with another coinsUsed (CPN-5). Each is self-contained: its own
// function over the channel's entries, called once from Build.

// secondReveals is REV-2: a FetchRewardInfo of a card (channel, user,
// rewardId) that an earlier FetchRewardInfo already revealed, or whose
// answer says it was revealed before; each such exchange counts once. The reward
// is returned once; the revealed card is shown from the listing.
func secondReveals(c *collector, es []*journal.Entry) {
	revealed := map[string]uint64{} // card -> seq of the reveal
	for _, e := range es {
		if !endpointIs(e, "FetchRewardInfo") {
			continue
		}
		req := body(e.Request.BDATA)
		id := jsonText(req["rewardId"])
		if id == "" {
			continue
		}
		k := e.Channel + "\x00" + jsonText(req["virtualId"]) + "\x00" + id
		ans := body(e.Response.BDATA)
		fresh := e.Status == 200 && ans["status"] == true
		// A second reveal never answers with the reward (either reading of
		// switches.cards.secondReveal): a fresh success is a new card of
		// the same id, after a reset (a recording replayed twice).
		if seq, ok := revealed[k]; ok && !fresh {
			c.add("second-reveal", e, fmt.Sprintf("card %s was revealed again (first revealed by exchange %d)", id, seq))
			continue
		}
		// The first reveal may be outside the journal's window (or made
		// through the microsite): the answer itself then tells.
		if secondReveal(e) {
			c.add("second-reveal", e, "FetchRewardInfo answered that the card was revealed before")
			continue
		}
		if fresh {
			revealed[k] = e.Seq
		}
	}
}

// conflictingGetRewards is GR-4: a GetReward whose extTransactionId
// already created cards, sent with a different body. The service answers
// the first cards and ignores the change, so the publisher's new amount,
// trigger or user is silently lost.
func conflictingGetRewards(c *collector, es []*journal.Entry) {
	first := map[string]*journal.Entry{} // channel + extTransactionId -> the call that created cards
	for _, e := range es {
		if !endpointIs(e, "GetReward") {
			continue
		}
		m := plainBody(e.Request.Body)
		tx := jsonText(m["extTransactionId"])
		if tx == "" {
			continue
		}
		k := e.Channel + "\x00" + tx
		if prev, ok := first[k]; ok {
			if diff := differingKeys(plainBody(prev.Request.Body), m); len(diff) > 0 {
				c.add("get-reward-conflicting-duplicate", e, fmt.Sprintf("extTransactionId %q was sent again with a different %s (first sent in exchange %d)", tx, strings.Join(diff, ", "), prev.Seq))
			}
			continue
		}
		if ans := plainBody(e.Response.Body); (e.Status == 200 && ans["status"] == true) || e.ClientGone {
			first[k] = e
		}
	}
}

// conflictingCoupons is CPN-5: a fetchCouponCode retried with the same
// extTransactionId and offer but another coinsUsed. The retry gets the
// first coupon (or a duplicate rejection), never the new price.
func conflictingCoupons(c *collector, es []*journal.Entry) {
	first := map[string]*journal.Entry{} // channel + offer + extTransactionId -> the first claim
	for _, e := range es {
		if !endpointIs(e, "fetchCouponCode") {
			continue
		}
		m := body(e.Request.Body)
		tx, offer := jsonText(m["extTransactionId"]), jsonText(m["offerId"])
		if tx == "" {
			continue
		}
		k := e.Channel + "\x00" + offer + "\x00" + tx
		prev, ok := first[k]
		if !ok {
			first[k] = e
			continue
		}
		was, now := jsonText(body(prev.Request.Body)["coinsUsed"]), jsonText(m["coinsUsed"])
		if was != now {
			c.add("coupon-claim-conflicting-duplicate", e, fmt.Sprintf("extTransactionId %q on offer %q was claimed with coinsUsed %s, then %s", tx, offer, was, now))
		}
	}
}

// plainBody decodes a JSON object with numbers as float64, so 100 and
// 100.00 are the same amount.
func plainBody(raw json.RawMessage) map[string]any {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// differingKeys names the top-level fields whose values differ, sorted.
func differingKeys(a, b map[string]any) []string {
	var out []string
	for k := range a {
		if !reflect.DeepEqual(a[k], b[k]) {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, both := a[k]; !both {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// jsonText is a scalar as text: a string as is, a number as written.
func jsonText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return ""
	}
	return show(v)
}
