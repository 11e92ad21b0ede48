// Package httpx is the echo glue: handlers return errors, one handler
// renders them, the client's message is kept apart from the logged cause.
package httpx

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/onewrite"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

// MaxBody is the largest request body any endpoint reads (1 MiB).
const MaxBody = 1 << 20

// ReasonHeader carries the simulator's precise reason for a failure, so a
// publisher can debug without the body leaving the contract's shape.
const ReasonHeader = "X-Rewardsim-Reason"

// ErrTooLarge means the body exceeded MaxBody. Every endpoint answers it
// alike: HTTP 413, and these words in the endpoint's own error shape.
var ErrTooLarge = &refusal.Refusal{Kind: refusal.TooLarge, Msg: "request body is larger than 1 MiB"}

// StatusOf is the HTTP status of each kind of refusal: the one mapping
// from the domain's refusals to HTTP.
func StatusOf(kind refusal.Kind) int {
	return map[refusal.Kind]int{
		refusal.Invalid: http.StatusBadRequest, refusal.NotFound: http.StatusNotFound, refusal.Conflict: http.StatusConflict,
		refusal.Unauthorized: http.StatusUnauthorized, refusal.NotEligible: http.StatusForbidden,
		refusal.LimitReached: http.StatusTooManyRequests, refusal.TooLarge: http.StatusRequestEntityTooLarge,
	}[kind]
}

// InvalidStatus is the status of a refused request on an endpoint whose
// bad input answers invalid: 413 for a body over MaxBody (as everywhere),
// otherwise the endpoint's own.
func InvalidStatus(err error, invalid int) int {
	if refusal.Is(err, refusal.TooLarge) {
		return StatusOf(refusal.TooLarge)
	}
	return invalid
}

// Error is an answer in the endpoint's own shape. Body is written as JSON
// (or as-is when it is a []byte); Reason goes to ReasonHeader and the log.
type Error struct {
	Status int
	Body   any
	Reason string
	Header http.Header
}

func (e *Error) Error() string { return e.Reason }

// ReadBody reads at most MaxBody bytes of the request body.
func ReadBody(c echo.Context) ([]byte, error) {
	body := c.Request().Body
	if body == nil || body == http.NoBody { // a GET: no read buffer to allocate
		return []byte{}, nil
	}
	if p, ok := body.(*peekedBody); ok {
		if whole, ok := p.take(); ok {
			if len(whole) > MaxBody {
				return nil, ErrTooLarge
			}
			return whole, nil
		}
	}
	data, err := io.ReadAll(io.LimitReader(body, MaxBody+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxBody {
		return nil, ErrTooLarge
	}
	return data, nil
}

// JSONSerializer is echo's JSON encoding of every answer, without HTML
// escaping: a URL keeps its `&` (not `\u0026`), as the vendor's service
// sends it, so naive readers and log greps see what a publisher expects.
type JSONSerializer struct{ echo.DefaultJSONSerializer }

// Serialize writes i as JSON with `<`, `>` and `&` as themselves.
func (JSONSerializer) Serialize(c echo.Context, i any, indent string) error {
	enc := json.NewEncoder(c.Response())
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	return enc.Encode(i)
}

// Indented reports whether c.JSON would indent an answer (?pretty, or
// echo's debug mode). Answers written by hand (WriteJSON) are compact,
// so their handlers leave the indented ones to c.JSON.
func Indented(c echo.Context) bool {
	_, pretty := c.QueryParams()["pretty"]
	return pretty || c.Echo().Debug
}

// WriteJSON answers 200 with the JSON appendTo appends, newline included,
// as JSONSerializer would write it, and with its Content-Length: the
// busiest answers are written by hand, without reflection (issue 25), in
// a pooled buffer, whole, and the connection is told an answer is coming
// (onewrite.Expect) so it leaves in one write. The buffer is back in the
// pool once written: whoever keeps the answer (the journal) copies it.
func WriteJSON(c echo.Context, appendTo func([]byte) []byte) error {
	buf := answerBufs.Get().(*[]byte)
	*buf = appendTo((*buf)[:0])
	if !c.Response().Committed {
		// The whole answer is known: say its length. net/http chunks an
		// answer of over 2 KB whose length it was not told, and the
		// listing's page of cards is larger than that.
		c.Response().Header()["Content-Length"] = []string{strconv.Itoa(len(*buf))}
	}
	onewrite.Expect(c.Request(), len(*buf))
	err := c.Blob(http.StatusOK, echo.MIMEApplicationJSON, *buf)
	if cap(*buf) <= maxPooledAnswer { // a writer keeps no reference (io.Writer)
		answerBufs.Put(buf)
	}
	return err
}

// answerBufs hold hand-written answers while they are written; one
// larger than maxPooledAnswer (a long listing page) is not kept.
var answerBufs = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledAnswer = 64 << 10

// SetReason writes a one-line reason header.
func SetReason(c echo.Context, reason string) {
	if reason != "" {
		reason = strings.Map(func(r rune) rune {
			if r < 0x20 || r > 0x7e {
				return ' '
			}
			return r
		}, reason)
		c.Response().Header().Set(ReasonHeader, reason)
	}
}

// ErrorHandler renders every error a handler returns. Router errors (404,
// 405) become a small JSON body; anything unexpected is logged and becomes
// a 500, which tests treat as a bug.
func ErrorHandler(log *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		var e *Error
		var he *echo.HTTPError
		switch {
		case errors.As(err, &e):
			for k, vs := range e.Header {
				for _, v := range vs {
					c.Response().Header().Add(k, v)
				}
			}
			SetReason(c, e.Reason)
			if raw, ok := e.Body.([]byte); ok {
				_ = c.Blob(e.Status, echo.MIMETextPlainCharsetUTF8, raw)
				return
			}
			_ = c.JSON(e.Status, e.Body)
		case errors.As(err, &he):
			msg := http.StatusText(he.Code)
			if he.Code == http.StatusNotFound {
				msg = "no such endpoint on this host: " + c.Request().Method + " " + c.Request().URL.Path
			}
			_ = c.JSON(he.Code, map[string]any{"message": msg})
		case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			// The client went away (an injected delay outlived its
			// timeout): nobody reads this answer. 499 is nginx's "client
			// closed request", so the journal shows what happened.
			_ = c.NoContent(499)
		default:
			if log != nil {
				log.Error("unhandled error", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
			}
			_ = c.JSON(http.StatusInternalServerError, map[string]any{"message": "internal simulator error"})
		}
	}
}

// BaseURL is the scheme and host to put in absolute URLs handed out:
// the configured public URL, or else the one the request came in on.
func BaseURL(c echo.Context, configured string) string {
	if configured != "" {
		return strings.TrimRight(configured, "/")
	}
	req := c.Request()
	scheme := "http"
	// echo's Scheme parses the peer's address to decide whether to trust
	// the forwarding headers (2% of GetReward's CPU in a make load
	// profile, issue 25); without any of them its answer is the
	// connection's scheme, whoever the peer.
	if req.TLS != nil || forwarded(req.Header) {
		scheme = c.Scheme()
	}
	return scheme + "://" + req.Host
}

// forwarded says h holds a header echo's Scheme reads the scheme from.
func forwarded(h http.Header) bool {
	return len(h[echo.HeaderXForwardedProto]) > 0 || len(h[echo.HeaderXForwardedProtocol]) > 0 ||
		len(h[echo.HeaderXForwardedSsl]) > 0 || len(h[echo.HeaderXUrlScheme]) > 0
}

// Drop closes the client's connection without an answer (an injected
// dropped connection). http.NewResponseController follows Unwrap, so it
// reaches the connection through wrapping writers such as the journal's.
// Where nothing can be hijacked (HTTP/2), the handler is aborted the way
// net/http documents, which resets the stream.
//
// The journal records the drop and the fault named by reason ("injected
// fault: NAME"), since no answer carries them.
func Drop(c echo.Context, reason string) error {
	o := OutcomeOf(c)
	o.Dropped = true
	if name := faultName(reason); name != "" {
		o.Fault = name
	}
	conn, _, err := http.NewResponseController(c.Response().Writer).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	c.Response().Committed = true
	_ = conn.Close()
	return ErrDropped
}

// Wait blocks for d or until the request ends: injected delays wait on a
// timer the request context cancels, never on time.Sleep.
func Wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

var ErrDropped = errors.New("connection dropped on purpose")

// ValidJSON checks a body the door read (readErr is the read's error):
// one JSON value, valid against the named schema. The refusal says what
// is wrong (naming the field), for the endpoint to render in its own
// answer shape: too large, or invalid. doc is the body decoded once: its
// Value's top-level members, and Into for the request's typed fields.
func ValidJSON(set *schema.Set, name string, body []byte, readErr error) (doc schema.Parsed, refused *refusal.Refusal) {
	if errors.Is(readErr, ErrTooLarge) {
		return doc, ErrTooLarge
	}
	if readErr != nil {
		return doc, refusal.New(refusal.Invalid, "body could not be read: %v", readErr)
	}
	doc, err := schema.Parse(body)
	if err != nil {
		return doc, refusal.New(refusal.Invalid, "body is %v", err)
	}
	if err := set.Validate(name, doc.Value); err != nil {
		return doc, refusal.New(refusal.Invalid, "%v", err)
	}
	return doc, nil
}

// Member is the top-level member key of doc's object as a string, ""
// when it is absent or not a string.
func Member(doc schema.Parsed, key string) string {
	fields, _ := doc.Value.(map[string]any)
	s, _ := fields[key].(string)
	return s
}
