// Package conform checks that an answer of a contract operation keeps
// that operation's JSON Schemas: the envelope or plain body, the decoded
// BDATA, and the failure shapes. The public harness (sim/simtest) and the
// fuzz test share it.
package conform

import (
	"encoding/base64"
	"encoding/json"
	"net/http"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

// Answer returns why an answer of op breaks its schemas, or "".
// Injected faults (bare HTTP statuses) are outside every schema by design;
// callers recognise them by their reason header.
func Answer(set *schema.Set, op contract.Op, status int, body []byte) string {
	if op.Auth == contract.APIKey {
		return apiKeyAnswer(set, op, status, body)
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

// apiKeyAnswer checks a coupon-host answer: its schema, and that an HTTP
// status other than 200 mirrors the body status (CPN-3). Only the injected
// INTERNAL_ERROR may be a 5xx, and only as HTTP 500.
func apiKeyAnswer(set *schema.Set, op contract.Op, status int, body []byte) string {
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
