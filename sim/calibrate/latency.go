package calibrate

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/latency"
)

// Latency samples (issue 53 item 3): every call's answer time is kept
// per endpoint; --latency-samples N more calls of each endpoint the
// probes call (read-only ones only unless writes are allowed) give
// figures a profile can rest on.
const (
	// MaxLatencySamples bounds Options.LatencySamples (calls per endpoint).
	MaxLatencySamples = 1000
	// MinProfileSamples is the fewest samples a profile is written from:
	// fewer give no p99 worth the name.
	MinProfileSamples = 20
)

// LatencyFigure is one endpoint's measured answer time.
type LatencyFigure struct {
	Endpoint string `json:"endpoint"`
	Samples  int    `json:"samples"`
	Median   string `json:"median"`
	P99      string `json:"p99"`
	// Sampled says what --latency-samples called ("" when the figures
	// are the probes' calls alone).
	Sampled string `json:"sampled,omitempty"`
	// Profiled: the figures are written into the overlay as a log-normal
	// profile (at least MinProfileSamples samples of an operation a
	// profile can name).
	Profiled bool `json:"profiled"`
}

// noteLatency keeps e's answer time under its endpoint.
func (r *run) noteLatency(e *Exchange, took time.Duration) {
	if r.latency == nil {
		r.latency = map[string][]time.Duration{}
	}
	r.latency[e.Op] = append(r.latency[e.Op], took)
}

// sampler makes one latency sample of an endpoint.
type sampler struct {
	op string
	// what the samples call, as the report and the overlay say it.
	what string
	call func(r *run) error
}

// readSamplers are the read-only probes' own calls, one per endpoint:
// none issues a card, claims a coupon or burns stock (tokens are issued,
// as the probes issue them). Some are refusals or not-eligible answers,
// whose time may differ from the operation's work.
var readSamplers = []sampler{
	{contract.OpReferenceToken, "a reference token", func(r *run) error {
		tok, _, err := r.fetchRefToken()
		if err == nil {
			r.refToken, r.refErr = tok, nil // the newest, should the service keep one
		}
		return err
	}},
	{contract.OpAuthToken, "the probes' user's token", func(r *run) error {
		vid := r.fetchUser()
		tok, e, err := r.fetchUserToken(vid)
		if err == nil {
			r.userTokens[vid] = userToken{tok, e, nil}
		}
		return err
	}},
	{contract.OpGetReward, "a trigger no campaign answers (not eligible)", func(r *run) error {
		tok, _, err := r.refTokenCall()
		if err == nil {
			_, err = r.getReward(tok, noTrigger, "a latency sample", nil)
		}
		return err
	}},
	{contract.OpFetchRewardInfo, "a card that does not exist", sampleFetchMissing},
	{contract.OpListCards, "the probes' user's cards", func(r *run) error {
		tok, _, err := r.userTokenCall(r.fetchUser())
		if err == nil {
			_, err = r.list(tok, "", "a latency sample")
		}
		return err
	}},
	{contract.OpBankCard, "a campaignId that does not exist (not eligible)", func(r *run) error {
		_, err := r.bankCard("CALNOSUCHCAMPAIGN", "a latency sample")
		return err
	}},
	{contract.OpSDKIssueAndroid, "a trigger no campaign answers, empty sessionId", func(r *run) error {
		_, err := r.sdkEmptySession()
		return err
	}},
	{contract.OpFetchCoupon, "an offer that does not exist (refused)", func(r *run) error {
		_, err := r.apiKey(contract.OpFetchCoupon, map[string]any{"offerId": "CAL-NO-SUCH-OFFER", "virtualId": r.user(), "channelName": r.t.Channel,
			"extTransactionId": r.txn(), "coinsUsed": "100"}, "a latency sample")
		return err
	}},
	{contract.OpCatalogue, "the channel's catalogue", func(r *run) error {
		_, err := r.apiKey(contract.OpCatalogue, map[string]string{"channelName": r.t.Channel}, "a latency sample")
		return err
	}},
}

// sampleFetchMissing reveals a card that does not exist, signed, with
// the probes' user's token.
func sampleFetchMissing(r *run) error {
	vid := r.fetchUser()
	tok, _, err := r.userTokenCall(vid)
	if err != nil {
		return err
	}
	e, err := r.signed(contract.OpFetchRewardInfo, r.t.RewardsURL+"/api/FetchRewardInfo",
		map[string]string{"rewardId": "987654321987", "virtualId": vid, "channelName": r.t.Channel}, nil)
	if err != nil {
		return err
	}
	e.Header.Set("Authorization", "Bearer "+tok)
	return r.send(e)
}

// writeSamplers are the write probes' calls, sampled instead of their
// endpoint's read-only call with --allow-writes when the flag each needs
// was given: every sample issues a card or claims a coupon.
func (r *run) writeSamplers() []sampler {
	out := []sampler{{contract.OpGetReward, "--trigger " + r.t.Trigger + " (issues a card)", func(r *run) error {
		tok, _, err := r.refTokenCall()
		if err == nil {
			_, err = r.getReward(tok, r.t.Trigger, "a latency sample", nil)
		}
		return err
	}}}
	if r.t.Campaign != "" {
		out = append(out, sampler{contract.OpBankCard, "--campaign " + r.t.Campaign + " (issues a card)", func(r *run) error {
			_, err := r.bankCard(r.t.Campaign, "a latency sample")
			return err
		}})
	}
	if len(r.t.Offers) > 0 {
		out = append(out, sampler{contract.OpFetchCoupon, "--offer " + r.t.Offers[0] + " at its price (claims a coupon)", func(r *run) error {
			offer, coins, err := r.firstOffer()
			if err == nil {
				_, err = r.claim(offer, r.user(), r.txn(), coins, "a latency sample")
			}
			return err
		}})
	}
	return out
}

// samplers are the endpoints sampled: every read-only one, each write
// one's instead with --allow-writes.
func (r *run) samplers() []sampler {
	out := slices.Clone(readSamplers)
	if !r.o.AllowWrites {
		return out
	}
	for _, w := range r.writeSamplers() {
		i := slices.IndexFunc(out, func(s sampler) bool { return s.op == w.op })
		out[i] = w
	}
	return out
}

// sampleLatency calls each sampled endpoint n times more, in turns (a
// budget of their own, and a few calls for the tokens and the catalogue
// they rest on). An endpoint whose sample cannot be made (a token the
// service would not give) is dropped; a stopped run stops sampling.
func (r *run) sampleLatency(n int) {
	if n <= 0 || r.stopped != "" {
		return
	}
	n = min(n, MaxLatencySamples)
	ss := r.samplers()
	r.o.Budget = r.calls + n*len(ss) + 4
	r.sampled = map[string]string{}
	for _, s := range ss {
		r.sampled[s.op] = s.what
	}
	for range n {
		for i := 0; i < len(ss); i++ {
			before := r.calls
			err := ss[i].call(r)
			if r.stopped != "" || errors.Is(err, errBudget) {
				return
			}
			if r.calls == before { // no call made: its precondition failed
				delete(r.sampled, ss[i].op)
				ss = slices.Delete(ss, i, i+1)
				i--
			}
		}
	}
}

// latencyFigures are the endpoints' measured figures, by endpoint.
func (r *run) latencyFigures() []LatencyFigure {
	var out []LatencyFigure
	for op, ds := range r.latency {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		q := func(p float64) time.Duration {
			return min(ds[int(math.Round(p*float64(len(ds)-1)))].Round(100*time.Microsecond), latency.MaxDelay)
		}
		med, p99 := max(q(0.5), 100*time.Microsecond), q(0.99)
		_, isOp := contract.ByName(op) // the session's page (microsite) is no operation
		out = append(out, LatencyFigure{Endpoint: op, Samples: len(ds), Median: med.String(), P99: max(p99, med).String(),
			Sampled: r.sampled[op], Profiled: isOp && len(ds) >= MinProfileSamples})
	}
	slices.SortFunc(out, func(a, b LatencyFigure) int {
		if a.Endpoint < b.Endpoint {
			return -1
		}
		if a.Endpoint > b.Endpoint {
			return 1
		}
		return 0
	})
	return out
}

// writeLatency appends the profiled figures to an overlay as its
// latency: list, each saying the samples it rests on.
func (rep *Report) writeLatency(b *bytes.Buffer) {
	first := true
	for _, f := range rep.Latency {
		if !f.Profiled {
			continue
		}
		if first {
			b.WriteString("# Latency measured from this machine (network included): log-normal by median and p99.\nlatency:\n")
			first = false
		}
		how := ""
		if f.Sampled != "" {
			how = "; sampled with " + f.Sampled
		}
		fmt.Fprintf(b, "  # %s: %d samples%s\n  - {endpoint: %s, lognormal: {median: %s, p99: %s}, samples: %d}\n", f.Endpoint, f.Samples, how, f.Endpoint, f.Median, f.P99, f.Samples)
	}
}
