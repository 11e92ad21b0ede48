package calibrate

import (
	"fmt"
	"net/url"
	"sort"

	"github.com/rewardsim/rewardsim/sim/internal/recfile"
)

// Passive reads, from traffic calibrate did not make (a recording made
// through `rewardsim record` in front of a real service), the switches
// its answers show by themselves, with the probes' own readers. A
// switch two answers read differently (a fault injected, say) is left
// out: only what the traffic shows without doubt is kept.
func Passive(exchanges []Exchange) map[string]string {
	seen := map[string]map[string]bool{}
	note := func(name, value string, ok bool) {
		if !ok {
			return
		}
		if seen[name] == nil {
			seen[name] = map[string]bool{}
		}
		seen[name][value] = true
	}
	for i := range exchanges {
		for name, reader := range passiveReaders(&exchanges[i]) {
			v, ok := reader(&exchanges[i])
			note(name, v, ok)
		}
	}
	out := map[string]string{}
	for name, values := range seen {
		if len(values) == 1 {
			for v := range values {
				out[name] = v
			}
		}
	}
	return out
}

// passiveReaders are the readers that apply to e's operation.
func passiveReaders(e *Exchange) map[string]func(*Exchange) (string, bool) {
	m := map[string]func(*Exchange) (string, bool){}
	switch e.Op {
	case "getSecuredReferenceToken", "GetAuthToken":
		m["tokens.expireDateFormat"] = func(e *Exchange) (string, bool) {
			expire, _, ok := tokenAnswer(e)
			if !ok {
				return "", false
			}
			return expireFormat(expire)
		}
	case "fetchCouponCode":
		m["switches.coupons.orderId"] = readOrderID
	case "FetchRewardInfo":
		m["switches.cards.fetchAnswerSigned"] = func(e *Exchange) (string, bool) {
			if status, _, _, ok := revealAnswer(e); !ok || status == nil || !*status {
				return "", false // a first reveal's answer, status true
			}
			return readFetchAnswerSigned(e)
		}
		m["switches.cards.secondReveal"] = readSecondReveal
	case "GetAllScratchCardsByUserId":
		if u, err := url.Parse(e.URL); err == nil && u.Query().Get("limit") == "" {
			m["switches.cards.listDefaultLimit"] = readListLimit
		}
	case "GetScratchCardForBank":
		m["switches.cards.bankNotEligible"] = readBankNotEligible
	}
	switch e.Op {
	case "fetchCouponCode", "getUserCoupons", "getCatalogue":
		m["switches.coupons.httpStatus"] = readCouponHTTPStatus
	case "getSecuredReferenceToken", "GetAuthToken", "GenerateSessionInfoV2", "FetchRewardInfo", "GetScratchCardForBank":
		m["switches.failureHttpStatus"] = func(e *Exchange) (string, bool) {
			if s, ok := bareFailure(e.Resp); ok && s == "Internal Error!" {
				return "", false // a platform failure may carry its own status
			}
			return readFailureStatus(e)
		}
	}
	return m
}

// CompareReadings lists each reading that the scenario (YAML, as the
// control API shows it) reads otherwise: a replay against a simulator
// that reads the contract differently from the service recorded.
func CompareReadings(readings map[string]string, scenarioName string, yml []byte) []string {
	if len(readings) == 0 {
		return nil
	}
	sc, err := ParseScenario("replay-target.yaml", yml)
	if err != nil {
		return nil // the replay itself reports a scenario that does not load
	}
	names := make([]string, 0, len(readings))
	for n := range readings {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		s, ok := SwitchByName(n)
		if !ok {
			continue
		}
		if want := s.Value(sc); !s.Same(want, readings[n]) {
			out = append(out, fmt.Sprintf("the recorded service reads %s as %s; the replay's scenario (%s) reads it as %s", n, readings[n], scenarioName, want))
		}
	}
	return out
}

// ReadAnswers is Passive over the answers a record proxy passed on (the
// recording wing hands them out; calibrate reads them).
func ReadAnswers(as []recfile.Answer) map[string]string {
	xs := make([]Exchange, len(as))
	for i, a := range as {
		xs[i] = Exchange{Op: a.Op, Method: a.Method, URL: a.URL, Status: a.Status, RespHeader: a.Header, Resp: a.Body, At: a.At}
	}
	return Passive(xs)
}
