package picture

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/outcome"
	"github.com/rewardsim/rewardsim/sim/internal/recfile"
)

// RecordingCalls turns a recording's steps into the diagram's calls, in
// step order, numbered from 1: the picture of a recorded session without
// replaying it. A recording keeps the answer's status and its
// X-Rewardsim-Reason header, so the fault that fired (or the reason
// given) shows as it does for the journal. Recordings leave webhook
// pushes out, so the receiver's lane stays empty.
func RecordingCalls(steps []recfile.Step) []Call {
	out := make([]Call, 0, len(steps))
	for i, st := range steps {
		e := journal.Entry{Kind: journal.KindExchange, Host: st.Host, Method: st.Method, Path: st.Path}
		if e.Host == "" {
			if op, ok := contract.ByPath(st.Method, st.Path); ok {
				e.Host = string(op.Host)
			}
		}
		c := Call{Seq: uint64(i + 1), From: Publisher, To: laneOf(e), Label: st.Endpoint, Status: st.Expect.Status}
		if c.Label == "" {
			c.Label = st.Method + " " + st.Path
		}
		reason := headerValue(st.Expect.Header, httpx.ReasonHeader)
		if f, ok := strings.CutPrefix(reason, journal.FaultPrefix); ok {
			c.Fault = f
		} else {
			c.Reason = reason
		}
		c.Outcome, c.ErrorCode = recordedOutcome(c, st.Expect)
		out = append(out, c)
	}
	return out
}

// RecordingTitle names the diagram of rec.
func RecordingTitle(rec *recfile.Recording) string {
	return fmt.Sprintf("rewardsim recording %s (%d steps)", rec.Name, len(rec.Steps))
}

// headerValue reads a recorded header whatever the case of its name (a
// hand-written recording may not canonicalise it).
func headerValue(h map[string]string, name string) string {
	if v, ok := h[name]; ok {
		return v
	}
	for k, v := range h {
		if http.CanonicalHeaderKey(k) == name {
			return v
		}
	}
	return ""
}

// recordedOutcome reads a recorded answer's contract outcome: a fault
// that fired, no answer, or a refusal in the body (a coupon errorCode,
// {STATUS: FAILURE}, status false, also in the decoded BDATA).
func recordedOutcome(c Call, x recfile.Expect) (kind, errorCode string) {
	var b struct {
		ErrorCode string `json:"errorCode"`
		STATUS    string `json:"STATUS"`
		Status    any    `json:"status"`
	}
	no := false
	for _, raw := range []json.RawMessage{x.Body, x.BDATA} {
		b.ErrorCode, b.STATUS, b.Status = "", "", nil
		if len(raw) > 0 && json.Unmarshal(raw, &b) == nil {
			errorCode = cmp.Or(errorCode, b.ErrorCode)
			no = no || b.STATUS == "FAILURE" || b.Status == false || b.ErrorCode != ""
		}
	}
	switch {
	case c.Fault != "":
		return outcome.Fault, errorCode
	case c.Status == 0:
		return outcome.Transport, errorCode
	case no || c.Status >= 400 || c.Reason != "":
		return outcome.Refusal, errorCode
	}
	return outcome.Success, ""
}
