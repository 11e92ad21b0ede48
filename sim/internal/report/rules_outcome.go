package report

import (
	"fmt"
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
)

// Rules on what a publisher does after the service said no (issue 24): a
// claim retried under a new extTransactionId after an answer that no
// retry can change (CPN-3), and calls with a token past its expiry
// (TOK-4, AUTH-2).

// terminalCouponErrors are the coupon errorCodes a new claim for the same
// user and offer cannot change: stock gone, the limit reached, the user
// not eligible, the offer unknown.
var terminalCouponErrors = map[string]bool{
	"COUPON_EXHAUSTED": true, "MAX_LIMIT_REACHED": true, "NON_ELIGIBLE": true, "INVALID_OFFER": true,
}

// claimsAfterTerminal flags a claim for a (channel, user, offer) made with
// a new extTransactionId after an earlier claim was answered with a
// terminal errorCode.
func claimsAfterTerminal(c *collector, es []*journal.Entry) {
	refused := map[string]claim{} // channel + user + offer -> the claim refused for good
	codes := map[string]string{}
	for _, cl := range claims(es) {
		k := cl.channel + "\x00" + cl.virtualID + "\x00" + cl.offer
		if first, ok := refused[k]; ok && cl.extTxID != first.extTxID {
			c.add("claim-after-terminal-error", cl.e, fmt.Sprintf("offer %q answered %s to claim %q (exchange %d); claim %q was sent anyway",
				cl.offer, codes[k], first.extTxID, first.e.Seq, cl.extTxID))
			continue
		}
		if code := jsonText(body(cl.e.Response.Body)["errorCode"]); terminalCouponErrors[code] {
			if _, ok := refused[k]; !ok {
				refused[k], codes[k] = cl, code
			}
		}
	}
}

// reasonExpired is the refusal reason of a token past its expiry.
const reasonExpired = "expired"

// expiredTokens flags every call refused because its token had expired;
// one whose token was already refused as expired says so.
func expiredTokens(c *collector, es []*journal.Entry) {
	told := map[string]uint64{} // credential -> seq of the first refusal
	for _, e := range es {
		if e.Kind != journal.KindExchange || e.Status != 401 || !contains(strings.ToLower(e.Reason), reasonExpired) || !contains(e.Reason, "token") {
			continue
		}
		cred := e.Request.Header["Authorization"]
		if seq, ok := told[cred]; ok && cred != "" {
			c.add("expired-token", e, fmt.Sprintf("%s %s sent a token already refused as expired in exchange %d", e.Method, e.Path, seq))
			continue
		}
		if cred != "" {
			told[cred] = e.Seq
		}
		c.add("expired-token", e, fmt.Sprintf("%s %s was refused: %s", e.Method, e.Path, e.Reason))
	}
}

// credentials are the masked secret header values of an entry (bearer
// tokens, API keys), by which a call that names no channel is attributed.
func credentials(e *journal.Entry) []string {
	var out []string
	for _, v := range e.Request.Header {
		if strings.Contains(v, "~fp:") {
			out = append(out, v)
		}
	}
	return out
}

// ofChannel selects the entries of one channel (name or CHANNELID): those
// that name it, and those that name none but carry a credential only that
// channel's calls carried.
func ofChannel(entries []journal.Entry, channel string) []*journal.Entry {
	owner := map[string]string{} // credential -> channel, "" when shared
	for i := range entries {
		e := &entries[i]
		if e.Channel == "" && e.ChannelID == "" {
			continue
		}
		mine := e.Channel == channel || e.ChannelID == channel
		for _, cr := range credentials(e) {
			if was, ok := owner[cr]; ok && (was == channel) != mine {
				owner[cr] = "\x00" // seen with several channels: attributes nothing
				continue
			}
			if mine {
				owner[cr] = channel
			} else if _, ok := owner[cr]; !ok {
				owner[cr] = "\x01"
			}
		}
	}
	var out []*journal.Entry
	for i := range entries {
		e := &entries[i]
		switch {
		case e.Channel == channel || e.ChannelID == channel:
			out = append(out, e)
		case e.Channel == "" && e.ChannelID == "":
			for _, cr := range credentials(e) {
				if owner[cr] == channel {
					out = append(out, e)
					break
				}
			}
		}
	}
	return out
}
