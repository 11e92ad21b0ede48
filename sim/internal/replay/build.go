package replay

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/recfile"
	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

// DefaultCaptureFields are the answer fields whose values later requests
// may carry: the credentials and ids the contract hands out.
var DefaultCaptureFields = []string{"referenceKey", "token", "sessionId", "rewardId", "orderId"}

// BuildOptions tune Build.
type BuildOptions struct {
	Name, Description string
	RecordedAt        time.Time
	// CaptureFields replace DefaultCaptureFields when not empty.
	CaptureFields []string
	Masks         map[string]recfile.MaskKind
	// Secrets is the memory of the journal the entries come from: what
	// it learnt is masked wherever a step echoes it (nil: only what
	// fields and parameters name).
	Secrets *secrets.Memory
}

// skipHeaders are not replayed: the transport sets them.
var skipHeaders = map[string]bool{
	"Content-Length": true, "Accept-Encoding": true, "Connection": true, "User-Agent": true,
	"Host": true, "Transfer-Encoding": true, "X-Forwarded-For": true,
}

// keptAnswerHeaders are compared on replay.
var keptAnswerHeaders = []string{"Content-Type", "X-Rewardsim-Reason"}

// Build makes a recording of the exchanges among entries, in order. A
// webhook push (its first journaled attempt; retries and repeats share
// its referenceId) becomes a control step that schedules it again, where
// it was delivered: the publisher's later answers may depend on it.
// Build holds every step until the last entry says which values later
// steps used; Stream writes the same bytes from two paged reads.
func Build(entries []journal.Entry, o BuildOptions) *recfile.Recording {
	s := &recfile.Recording{Version: recfile.Version, Name: o.Name, Description: o.Description, RecordedAt: o.RecordedAt, Masks: o.Masks, Steps: []recfile.Step{}}
	used := map[useKey]bool{}
	b := newStepper(o, func(c *candidate) bool { used[useKey{uint64(c.step), c.suffix()}] = true; return true })
	var all []*candidate
	for i := range entries {
		st, cs, ok := b.next(&entries[i])
		if !ok {
			continue
		}
		all = append(all, cs...)
		s.Steps = append(s.Steps, st)
	}
	for _, c := range all {
		if used[useKey{uint64(c.step), c.suffix()}] {
			s.Steps[c.step].Captures = append(s.Steps[c.step].Captures, c.capture())
		}
	}
	for i := range s.Steps {
		sortCaptures(s.Steps[i].Captures)
	}
	return s
}

// pushWait is the query of a push step: wait up to 10 s for its attempt.
const pushWait = "wait=10s"

// pushStep is the control call that schedules again the push a webhook
// attempt delivered, due at once. The referenceId is left out: a replay's
// push is a new push, with a fresh one.
func pushStep(e *journal.Entry, n int) (recfile.Step, string, bool) {
	var ev struct {
		ChannelName, OfferID, EventType, ExpiredDate, Reason, ReasonMessage, ReferenceID string
	}
	if json.Unmarshal(e.Request.Body, &ev) != nil || ev.ChannelName == "" || ev.OfferID == "" {
		return recfile.Step{}, "", false
	}
	body, err := recfile.MarshalValue(map[string]string{
		"channel": ev.ChannelName, "offerId": ev.OfferID, "eventType": ev.EventType,
		"expiredDate": ev.ExpiredDate, "reason": ev.Reason, "reasonMessage": ev.ReasonMessage,
	})
	if err != nil {
		return recfile.Step{}, "", false
	}
	return recfile.Step{
		ID: fmt.Sprintf("s%d", n), Host: recfile.HostControl, Endpoint: "webhook push", Method: http.MethodPost, Path: "/__sim/webhooks",
		// The control API answers at once by default; the steps after a
		// push (getUserCoupons showing it invalidated) need its attempt in.
		Query:  pushWait,
		Header: map[string]string{"Content-Type": "application/json"}, Body: body, Expect: recfile.Expect{Status: http.StatusCreated},
	}, ev.ReferenceID, true
}
