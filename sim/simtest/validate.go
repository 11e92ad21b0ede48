package simtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/conform"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

// validating checks every answer of a known operation against its schemas.
type validating struct {
	report  func(error) // nil: a violation fails the round trip
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
	msg := conform.Answer(v.schemas, op, res.StatusCode, body)
	if msg == "" {
		// Only answers that passed are recorded: one that failed already
		// fails its test (the harness's own self-test feeds it a fake service's).
		record(req, res, body)
		return res, nil
	}
	bad := fmt.Errorf("simtest: %s %s answered HTTP %d outside its schema: %s\nbody: %s", req.Method, req.URL.Path, res.StatusCode, msg, body)
	if v.report == nil {
		return nil, bad
	}
	v.report(bad)
	return res, nil
}

// CheckAnswer reports whether an answer to the contract operation at
// method and path keeps that operation's JSON Schemas (envelope, decoded
// BDATA, failure shapes, and on the coupon host an HTTP status that
// mirrors the body's). It returns nil for a conforming answer, else an
// error that says why. Answers of injected faults are outside every
// schema by design.
func CheckAnswer(method, path string, status int, body []byte) error {
	op, ok := contract.ByPath(method, path)
	if !ok {
		return fmt.Errorf("%s %s is no operation of the contract", method, path)
	}
	set, err := schema.Embedded()
	if err != nil {
		return err
	}
	if msg := conform.Answer(set, op, status, body); msg != "" {
		return errors.New(msg)
	}
	return nil
}
