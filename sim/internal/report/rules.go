package report

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// claim is the part of a fetchCouponCode request the rules read; e is
// the exchange without its bodies (slim).
type claim struct {
	e                                  *journal.Entry
	channel, virtualID, offer, extTxID string
	timedOut                           bool
}

// claimOf reads a fetchCouponCode exchange as a claim.
func claimOf(e *journal.Entry) (claim, bool) {
	if !endpointIs(e, "fetchCouponCode") {
		return claim{}, false
	}
	m := body(e.Request.Body)
	str := func(k string) string { s, _ := m[k].(string); return s }
	if m == nil || str("extTransactionId") == "" {
		return claim{}, false
	}
	return claim{slim(e), e.Channel, str("virtualId"), str("offerId"), str("extTransactionId"), timedOut(e)}, true
}

// timedOut: the caller gave up, the connection was dropped, or an
// injected fault withheld the answer.
func timedOut(e *journal.Entry) bool {
	return e.ClientGone || e.Dropped || contains(e.Fault, "timeout") || contains(e.Fault, "drop")
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
