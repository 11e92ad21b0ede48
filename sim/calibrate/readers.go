package calibrate

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

// The readers below read a switch from one answer, whoever asked: the
// probes call them on the exchanges they make, and Passive runs them
// over recorded traffic (a recording made through `rewardsim record`).

func decodeB64(s string) ([]byte, error) { return base64.StdEncoding.DecodeString(s) }

// bareFailure reads the unsigned failure {STATUS, ERRORSTRING}.
func bareFailure(body []byte) (errorString string, ok bool) {
	var f struct {
		STATUS      *string
		ERRORSTRING *string
	}
	if json.Unmarshal(body, &f) != nil || f.STATUS == nil || f.ERRORSTRING == nil {
		return "", false
	}
	return *f.ERRORSTRING, true
}

// envelopeOf reads a signed (or unsigned) answer envelope: its decoded
// BDATA and whether it carries a SIGN.
func envelopeOf(body []byte) (bdata []byte, signed, ok bool) {
	var env struct {
		CHANNELID *string
		SIGN      string
		BDATA     *string
	}
	if json.Unmarshal(body, &env) != nil || env.BDATA == nil {
		return nil, false, false
	}
	raw, err := decodeB64(*env.BDATA)
	if err != nil {
		return nil, false, false
	}
	return raw, env.SIGN != "", true
}

// readFailureStatus: a bare failure caused by the request answers with
// the HTTP status of switches.failureHttpStatus.
func readFailureStatus(e *Exchange) (string, bool) {
	if _, ok := bareFailure(e.Resp); !ok {
		return "", false
	}
	if e.Status == http.StatusOK || e.Status == http.StatusBadRequest {
		return strconv.Itoa(e.Status), true
	}
	return "", false
}

// readUnknownChannel reads the ERRORSTRING of an unknown CHANNELID.
func readUnknownChannel(e *Exchange) (string, bool) {
	s, ok := bareFailure(e.Resp)
	switch {
	case !ok:
		return "", false
	case s == "Signature Mismatch!":
		return "signature-mismatch", true
	case len(s) > len("Invalid Request!") && s[:len("Invalid Request!")] == "Invalid Request!":
		return "describe", true
	}
	return "", false
}

// expireFormat reads the format of an expireDate (TOK-4).
func expireFormat(s string) (string, bool) {
	if _, err := time.Parse("2006-01-02 15:04:05.000", s); err == nil {
		return "datetime-ms", true
	}
	if _, err := time.Parse(time.RFC3339, s); err == nil {
		return "iso8601", true
	}
	if _, err := strconv.ParseInt(s, 10, 64); err == nil && len(s) >= 12 {
		return "epoch-ms", true
	}
	return "", false
}

// expireTime reads an expireDate in its format; loc reads one without an offset.
func expireTime(s, format string, loc *time.Location) (time.Time, error) {
	switch format {
	case "iso8601":
		return time.Parse(time.RFC3339, s)
	case "epoch-ms":
		ms, err := strconv.ParseInt(s, 10, 64)
		return time.UnixMilli(ms), err
	}
	return time.ParseInLocation("2006-01-02 15:04:05.000", s, loc)
}

// tokenAnswer reads a token answer's BDATA: the expireDate and the token.
func tokenAnswer(e *Exchange) (expire, token string, ok bool) {
	raw, _, isEnv := envelopeOf(e.Resp)
	if !isEnv {
		return "", "", false
	}
	var b struct {
		ExpireDate   string `json:"expireDate"`
		Token        string `json:"token"`
		ReferenceKey string `json:"referenceKey"`
	}
	if json.Unmarshal(raw, &b) != nil || b.ExpireDate == "" {
		return "", "", false
	}
	if b.Token == "" {
		b.Token = b.ReferenceKey
	}
	return b.ExpireDate, b.Token, true
}

// readTokenTTL reads a token's lifetime: its expireDate against the
// answer's Date (the local arrival time without one), to the minute.
func readTokenTTL(e *Exchange, loc *time.Location) (format, ttl string, err error) {
	expire, _, ok := tokenAnswer(e)
	if !ok {
		return "", "", ambiguous("no token answer with an expireDate")
	}
	format, ok = expireFormat(expire)
	if !ok {
		return "", "", ambiguous("expireDate %q is in none of the documented formats", expire)
	}
	at, err := expireTime(expire, format, loc)
	if err != nil {
		return format, "", ambiguous("expireDate %q: %v", expire, err)
	}
	now := e.At
	if d, err := http.ParseTime(e.RespHeader.Get("Date")); err == nil {
		now = d
	}
	mins := math.Round(at.Sub(now).Minutes())
	if mins <= 0 || mins > 366*24*60 {
		return format, "", ambiguous("expireDate %q is %v from the answer's Date", expire, at.Sub(now).Round(time.Second))
	}
	return format, scenario.FormatDuration(time.Duration(mins) * time.Minute), nil
}

// couponBody reads a coupon-host answer's body status and errorCode.
func couponBody(e *Exchange) (status int, code string, data map[string]any, ok bool) {
	var b struct {
		Status    *int           `json:"status"`
		ErrorCode string         `json:"errorCode"`
		Data      map[string]any `json:"data"`
	}
	if json.Unmarshal(e.Resp, &b) != nil || b.Status == nil {
		return 0, "", nil, false
	}
	return *b.Status, b.ErrorCode, b.Data, true
}

// readCouponHTTPStatus: an error answer of the coupon host carries its
// status in the body; the HTTP status is 200 (body) or the same (mirror).
func readCouponHTTPStatus(e *Exchange) (string, bool) {
	status, _, _, ok := couponBody(e)
	switch {
	case !ok || status == http.StatusOK:
		return "", false
	case e.Status == http.StatusOK:
		return "body", true
	case e.Status == status:
		return "mirror", true
	}
	return "", false
}

// readOrderID: a delivered coupon carries data.orderId or not (CPN-7).
func readOrderID(e *Exchange) (string, bool) {
	status, _, data, ok := couponBody(e)
	if !ok || status != http.StatusOK || data == nil || data["coupon_code"] == nil {
		return "", false
	}
	_, has := data["orderId"]
	return strconv.FormatBool(has), true
}

// revealAnswer reads FetchRewardInfo's answer: its BDATA and whether it is signed.
func revealAnswer(e *Exchange) (status, already *bool, signed, ok bool) {
	raw, signed, ok := envelopeOf(e.Resp)
	if !ok {
		return nil, nil, false, false
	}
	var b struct {
		Status            *bool `json:"status"`
		IsAlreadyRewarded *bool `json:"isAlreadyRewarded"`
	}
	if json.Unmarshal(raw, &b) != nil {
		return nil, nil, false, false
	}
	return b.Status, b.IsAlreadyRewarded, signed, true
}

// readFetchAnswerSigned: a reveal's answer envelope carries SIGN or not (REV-5).
func readFetchAnswerSigned(e *Exchange) (string, bool) {
	_, _, signed, ok := revealAnswer(e)
	if !ok {
		return "", false
	}
	return strconv.FormatBool(signed), true
}

// readSecondReveal: a card revealed before answers the bare `Reward
// Already Revealed!`, or {status false, isAlreadyRewarded true} (REV-2).
func readSecondReveal(e *Exchange) (string, bool) {
	if s, ok := bareFailure(e.Resp); ok && s == "Reward Already Revealed!" {
		return "failure", true
	}
	status, already, _, ok := revealAnswer(e)
	if ok && status != nil && !*status && already != nil && *already {
		return "status-false", true
	}
	return "", false
}

// listAnswer reads a listing's answer.
func listAnswer(e *Exchange) (limit int, success bool, message string, ok bool) {
	var b struct {
		Status  *bool  `json:"status"`
		Message string `json:"message"`
		Limit   int    `json:"limit"`
	}
	if json.Unmarshal(e.Resp, &b) != nil || b.Status == nil {
		return 0, false, "", false
	}
	return b.Limit, *b.Status, b.Message, true
}

// readListLimit: a successful listing names the limit it applied.
func readListLimit(e *Exchange) (string, bool) {
	limit, success, _, ok := listAnswer(e)
	if !ok || !success || limit <= 0 {
		return "", false
	}
	return strconv.Itoa(limit), true
}

// readBankNotEligible: GetScratchCardForBank's not-eligible answer is a
// signed envelope or a bare body (BANK-4).
func readBankNotEligible(e *Exchange) (string, bool) {
	if raw, _, ok := envelopeOf(e.Resp); ok {
		var b struct {
			Status  bool   `json:"status"`
			Message string `json:"message"`
		}
		if json.Unmarshal(raw, &b) == nil && !b.Status && b.Message == "failure" {
			return "signed", true
		}
		return "", false
	}
	var b struct {
		Status  *bool  `json:"status"`
		Message string `json:"message"`
	}
	if json.Unmarshal(e.Resp, &b) == nil && b.Status != nil && !*b.Status && b.Message == "failure" {
		return "bare", true
	}
	return "", false
}

// outcome is how a JSON operation took a request: a card (or the
// not-eligible answer) is "taken", a refusal "refused".
type outcome int

const (
	unclear outcome = iota
	taken
	refused
)

// plainOutcome reads GetReward, the listing or SDK issuance: status true
// or the not-eligible {status false, message "failure"} took the
// request; status false with another message, at HTTP 400 or 200,
// refused it.
func plainOutcome(e *Exchange) outcome {
	var b struct {
		Status  *bool  `json:"status"`
		Message string `json:"message"`
	}
	if json.Unmarshal(e.Resp, &b) != nil || b.Status == nil {
		return unclear
	}
	switch {
	case e.Status == http.StatusOK && (*b.Status || b.Message == "failure"):
		return taken
	case !*b.Status && (e.Status == http.StatusBadRequest || e.Status == http.StatusOK):
		return refused
	}
	return unclear
}

func (o outcome) String() string {
	return [...]string{"unclear", "taken", "refused"}[o]
}

// overMaximum finds the maximum a refusal names ("over the maximum 50").
var overMaximum = regexp.MustCompile(`maximum\D{0,8}(\d+)`)

func maximumIn(message string) (int, bool) {
	m := overMaximum.FindStringSubmatch(message)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil && n > 0
}

func describe(e *Exchange) string {
	return fmt.Sprintf("HTTP %d %s", e.Status, clip(string(e.Resp)))
}
