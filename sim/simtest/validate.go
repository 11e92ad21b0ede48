package simtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

// validating checks every answer of a known operation against its schemas.
type validating struct {
	t       testing.TB
	next    http.RoundTripper
	schemas *schema.Set
}

func (v *validating) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := v.next.RoundTrip(req)
	if err != nil {
		return res, err
	}
	op, ok := contract.ByPath(req.Method, req.URL.Path)
	// Injected faults (their reason header says so) are outside the
	// schemas by design: a 500, a bare status, a body cut mid-JSON.
	if !ok || strings.HasPrefix(res.Header.Get(httpx.ReasonHeader), "injected fault:") {
		return res, nil
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return res, nil
	}
	if msg := CheckAnswer(v.schemas, op, res.StatusCode, body); msg != "" {
		v.t.Errorf("simtest: %s %s answered HTTP %d outside its schema: %s\nbody: %s", req.Method, req.URL.Path, res.StatusCode, msg, body)
	} else {
		// Only answers that passed: one that failed already fails its
		// test (the harness's own self-test feeds it a fake service's).
		record(req, res, body)
	}
	return res, nil
}

// CheckAnswer returns why an answer of op breaks its schemas, or "".
// Injected faults (bare HTTP statuses) are outside every schema by design
// and are recognised by their reason header in tests that use them.
func CheckAnswer(set *schema.Set, op contract.Op, status int, body []byte) string {
	if op.Auth == contract.APIKey {
		return checkAPIKeyAnswer(set, op, status, body)
	}
	if status >= 500 {
		return "a 5xx answer"
	}
	name := op.Response
	if status == http.StatusNotFound || status == http.StatusMethodNotAllowed {
		if err := set.ValidateJSON("not-found", body); err != nil {
			return "not-found: " + err.Error()
		}
		return ""
	}
	if status == http.StatusUnauthorized && (op.Auth == contract.BearerRef || op.Auth == contract.BearerUser) {
		name = "bearer-unauthorized"
	}
	if err := set.ValidateJSON(name, body); err != nil {
		return name + ": " + err.Error()
	}
	if op.ResponseBDATA == "" {
		return ""
	}
	var env struct {
		SIGN, BDATA string
	}
	if json.Unmarshal(body, &env) != nil || env.BDATA == "" {
		return "" // a bare failure, already checked
	}
	raw, err := base64.StdEncoding.DecodeString(env.BDATA)
	if err != nil {
		return "BDATA is not base64"
	}
	if err := set.ValidateJSON(op.ResponseBDATA, raw); err != nil {
		return op.ResponseBDATA + ": " + err.Error()
	}
	return ""
}

// checkAPIKeyAnswer checks a coupon-host answer: its schema, and that an
// HTTP status other than 200 mirrors the body status (CPN-3). Only the
// injected INTERNAL_ERROR may be a 5xx, and only as HTTP 500.
func checkAPIKeyAnswer(set *schema.Set, op contract.Op, status int, body []byte) string {
	if err := set.ValidateJSON(op.Response, body); err != nil {
		return op.Response + ": " + err.Error()
	}
	if status == http.StatusOK {
		return ""
	}
	var b struct {
		Status int `json:"status"`
	}
	if json.Unmarshal(body, &b) != nil || b.Status != status {
		return "HTTP status differs from the body status"
	}
	return ""
}
