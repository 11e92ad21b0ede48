// Package frontdoor is the one way into every operation of the public
// hosts: the request body is read once (bounded), the operation's auth
// scheme opens it (channel, scenario, schema, one decode into a typed
// request), the operation's own rules that come first are checked, the
// fault decision is made here and nowhere else, from the call the opener
// built, and an injected fault is rendered by the host's dialect; only
// then does the operation's own logic run.
package frontdoor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/latency"
	"github.com/rewardsim/rewardsim/sim/internal/limit"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/park"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

// Call is an opened request: authenticated, read once, decoded once,
// validated against its operation's schema.
type Call struct {
	Op       contract.Op
	Channel  model.Channel
	Scenario *scenario.Scenario
	// VirtualID is the user the call is for (the bearer token's, or the
	// payload's virtualId): fault rules match on it.
	VirtualID string
	// Token is the admitted bearer token (bearer schemes).
	Token model.Token
	// Envelope and BDATA are the signed request and its decoded payload
	// (envelope schemes).
	Envelope envelope.Envelope
	BDATA    []byte
	// OfferID and IdemKey are the coupon host's offerId and
	// extTransactionId (the claim's idempotency key) as its opener read
	// them, so an injected answer can word itself as the real outcome
	// would; "" where the request has none.
	OfferID, IdemKey string
	// Fault is an injected action the dialect left to the operation (a
	// not-eligible answer, a claim's commit kinds); Fired says one fired.
	Fault fault.Action
	Fired bool
}

// Shows reports whether an injected fault of kind fired and was left to
// the operation to show.
func (c *Call) Shows(kind string) bool { return c.Fired && c.Fault.Kind == kind }

// Opener is one auth scheme's way in: from the body (read by the door;
// readErr is the read's error, reported where the scheme reports it) it
// finds the channel and scenario, checks the body against the
// operation's schema and decodes it into req. Its errors are answers in
// the host's shape.
type Opener func(c echo.Context, op contract.Op, body []byte, readErr error, req any) (*Call, error)

// Dialect renders an injected fault in its host's shape. stop means the
// answer is given (err is it); false means the operation goes on (after
// a delay, or to show the fault itself: Call.Fault).
type Dialect func(c echo.Context, call *Call, act fault.Action) (stop bool, err error)

// Failure is a host's platform-failure answer for op in its own shape
// (the body of its Internal Error), for an error no opener or operation
// turned into an answer, or a panic. call is nil when the opener failed.
type Failure func(op contract.Op, call *Call) *httpx.Error

// Endpoint is one operation's own part: the way in and the dialect are
// the door's, chosen by the operation's row of contract.Ops.
type Endpoint[T any] struct {
	// Check runs the operation's own rules that come before the fault
	// decision (an invalid call is refused even when a rule would fire);
	// nil: none. It may fill fields of req it derives.
	Check func(c echo.Context, call *Call, req *T) error
	// Serve is the operation's own logic.
	Serve func(c echo.Context, call *Call, req *T) error
}

// StoryHeader names the failure stories applied to the call's channel.
const StoryHeader = "X-Rewardsim-Story"

// Door holds what every way in shares: one opener per auth scheme and
// one dialect per shape of failure, chosen by each operation's Auth and
// Dialect in contract.Ops.
type Door struct {
	// Faults are the rules added at run time (the control API's),
	// consulted before the governing scenario's own.
	Faults fault.Decider
	// Stories, if set, names the failure stories applied to a channel
	// ("" none): every answer to that channel says them in header
	// StoryHeader, so its journal entry shows what governed it.
	Stories  func(channel string) string
	Openers  map[contract.Auth]Opener
	Dialects map[contract.Dialect]Dialect
	// Failures answer what went wrong in the simulator itself, one per
	// dialect; Log hears of it, with the stack of a panic.
	Failures map[contract.Dialect]Failure
	Log      *slog.Logger
	// Limits are the channels' capacity limits (nil: none).
	Limits *limit.Set
	// Latency is the run-time latency profiles, consulted before the
	// governing scenario's own (nil: only the scenario's).
	Latency *latency.Set
	// Tokens resolves the bearer token of a call no way in admitted to
	// its owner (NoteUnopened; nil: not resolved).
	Tokens httpx.TokenChecker
}

// Covers reports an operation of ops the door cannot open or whose
// failures it cannot write (the not-available ones answer 404 on their own).
func (d *Door) Covers(ops []contract.Op) error {
	for _, op := range ops {
		if op.Dialect == contract.NotAvailable {
			continue
		}
		if d.Openers[op.Auth] == nil || d.Dialects[op.Dialect] == nil || d.Failures[op.Dialect] == nil {
			return fmt.Errorf("operation %s: the front door has no opener for auth %q or no dialect (or failure) %q", op.Name, op.Auth, op.Dialect)
		}
	}
	return nil
}

// Handle is the pipeline of one endpoint, bound to its operation by the
// router. A panic, or an error nobody answered, is answered with the
// operation's platform failure (HTTP 500, in its host's shape) and logged.
func Handle[T any](d *Door, e Endpoint[T]) httpx.OpHandler {
	return func(c echo.Context, op contract.Op) (err error) {
		var call *Call
		defer func() {
			if v := recover(); v != nil {
				err = &PanicError{Value: v, Stack: debug.Stack()}
			}
			if err != nil && !answered(err) {
				err = d.fail(c, op, call, err)
			}
		}()
		var req T
		body, readErr := httpx.ReadBody(c) // the one read of a public request body
		call, err = d.Openers[op.Auth](c, op, body, readErr, &req)
		if err != nil {
			d.NoteUnopened(c, body)
			o := httpx.OutcomeOf(c)
			o.Unadmitted = !o.Admitted
			d.sayStories(c) // a refusal of a channel's call shows its stories too
			return err
		}
		httpx.NoteAdmitted(c, call.Channel.Name, call.Channel.ChannelID)
		httpx.NoteCaller(c, "", "", call.VirtualID)
		d.sayStories(c)
		// The channel's capacity limit, once the call is known to be the
		// channel's and before any rule or store transaction: a call that
		// waits holds no transaction, and an admitted one holds its
		// in-flight place until its handler returns (a delay included).
		ticket, err := d.admitAndHold(c, op, call, body)
		if ticket != nil {
			defer ticket.Release()
		}
		if err != nil {
			return err
		}
		if e.Check != nil {
			if err := e.Check(c, call, &req); err != nil {
				return err
			}
		}
		// The one fault decision of the public hosts. It is settled once
		// the answer is given: shown when the answer named the fault (the
		// note the journal keeps), else handed back (a claim the domain
		// refused commits nothing to withhold), so the rule's counters and
		// the journal agree.
		if dec, fired := fault.First(d.Faults, call.Scenario.Faults, fault.Call{Endpoint: op.Name, Channel: call.Channel.Name, VirtualID: call.VirtualID}); fired {
			defer func() { dec.Settle(httpx.OutcomeOf(c).Fault != "") }()
			call.Fault, call.Fired = dec.Action, true
			if stop, err := d.Dialects[op.Dialect](c, call, dec.Action); stop {
				return err
			}
		}
		return e.Serve(c, call, &req)
	}
}

// LimitFault is the fault name the journal and metrics give a call its
// channel's limit refused.
const LimitFault = "limit"

// admit holds the call to its channel's capacity limit (the run-time one,
// else its scenario's). Refused, it is answered with the endpoint's
// platform failure at the status of switches.limits.status, with
// Retry-After when switches.limits.retryAfter says so; a caller that
// hung up while it waited gets its context's error (the journal's 499).
func (d *Door) admit(c echo.Context, op contract.Op, call *Call) (*limit.Ticket, error) {
	t, err := d.Limits.Admit(c.Request().Context(), call.Channel.Name, call.Scenario.LimitOf(call.Channel.Name))
	if err == nil {
		if t != nil && t.Waited > 0 {
			httpx.NoteLimit(c, httpx.LimitNote{Reason: t.Reason, Waited: t.Waited})
		}
		return t, nil
	}
	return nil, d.refuse(c, op, call, err)
}

// refuse answers a call its channel's limit turned away (err, a
// *limit.Refused; another error, the caller gone, is returned as it is).
// Apart from admit so that the admitted call's path allocates nothing.
func (d *Door) refuse(c echo.Context, op contract.Op, call *Call, err error) error {
	var r *limit.Refused
	if !errors.As(err, &r) {
		return err
	}
	httpx.NoteLimit(c, httpx.LimitNote{Refused: true, Reason: r.Reason, Waited: r.Waited})
	httpx.NoteFault(c, LimitFault)
	sw := call.Scenario.Switches.Limits
	answer := d.Failures[op.Dialect](op, call)
	answer.Status, answer.Reason = sw.Status, "limit: "+r.Error()
	if sw.RetryAfterOn() {
		// Whole seconds, at least 1: when the next token comes for a rate
		// limit; an in-flight place has no known time, so the soonest.
		secs := max(1, int((r.RetryAfter+time.Second-1)/time.Second))
		answer.Header = http.Header{"Retry-After": {strconv.Itoa(secs)}}
	}
	return answer
}

// admitAndHold admits the call to its channel's limit (admit) and holds
// it for its latency draw (hold), or, for a call read again after its
// draw (park), does neither: it was admitted and held at its first
// reading. The ticket is its in-flight place, to give back once it is
// answered (nil: none, or handed to the parked call's second reading).
func (d *Door) admitAndHold(c echo.Context, op contract.Op, call *Call, body []byte) (park.Ticket, error) {
	req := c.Request()
	if pc := park.From(req.Context()); pc != nil {
		pc.Header.SetIn(c.Response().Header())
		return pc.Ticket, req.Context().Err() // an error: the client left while it was held
	}
	ticket, err := d.admit(c, op, call)
	if err != nil {
		return nil, err
	}
	wait := d.draw(op, call)
	if wait > 0 && park.Can(req) {
		pc := park.Call{Arrival: httpx.OutcomeOf(c).Arrival, Ticket: ticket, Header: park.PairsOf(c.Response().Header())}
		if park.Park(c.Response().Writer, req, body, wait, pc) == nil {
			c.Response().Committed = true
			return nil, park.ErrParked
		}
	}
	return ticket, httpx.Wait(req.Context(), wait)
}

// draw is the call's latency, drawn from its profile (0: none). The hold
// comes before any of the operation's work: the profile is the service's
// processing time, so every answer of the endpoint to the channel (a
// refusal by its own rules too) and every effect come after it, and no
// store transaction is open meanwhile. A fault's delay comes on top (the
// dialect's). A call its way in refused is answered at once: it never
// reached the service's processing. The wait is a timer: on a listener
// that can park the call (park.Lot), its connection is set aside without
// a goroutine and read again when the timer fires; elsewhere it is the
// request's own goroutine. A client that hangs up ends it (a parked one
// is found gone when its timer fires).
func (d *Door) draw(op contract.Op, call *Call) time.Duration {
	var own *latency.Set
	if call.Scenario != nil {
		own = call.Scenario.Latency
	}
	src := latency.First(d.Latency, own, op.Name, call.Channel.Name)
	if src == nil {
		return 0
	}
	return src.Draw()
}

// sayStories names the failure stories applied to the channel the call
// was noted for, on its answer.
func (d *Door) sayStories(c echo.Context) {
	if ch := httpx.OutcomeOf(c).Channel; d.Stories != nil && ch != "" {
		if s := d.Stories(ch); s != "" {
			c.Response().Header().Set(StoryHeader, s)
		}
	}
}

// NoteUnopened says whom a call no way in admitted was for, from what
// it carries: its bearer token's owner, then what its body names
// (envelope.Identity): the journal, which reads no request, attributes
// a refusal, an endpoint the real service lacks and a path of no
// endpoint by it. An admitted call is attributed by what admitted it,
// even when its way in refused it after its credentials (NoteAdmitted).
func (d *Door) NoteUnopened(c echo.Context, body []byte) {
	o := httpx.OutcomeOf(c)
	if o.Admitted {
		return
	}
	if d.Tokens != nil {
		if v := httpx.Bearer(c); v != "" {
			// Any kind: a token of the wrong kind still has an owner. A
			// token the channel was given, even expired, is its credential:
			// the call is the channel's, whatever the opener noted before
			// it refused (an expired token's refusal names the header's
			// channel first).
			if t, _ := d.Tokens.Check(v, model.UserToken); t.Channel != "" {
				httpx.NoteAdmitted(c, t.Channel, "")
				httpx.NoteCaller(c, "", "", t.VirtualID)
				return
			}
		}
	}
	channel, channelID, virtualID := envelope.Identity(c.Request().Header.Get("X-CHANNELID"), body)
	httpx.NoteCaller(c, channel, channelID, virtualID)
}

// NoteUnread reads the body of a call no endpoint reads (an endpoint the
// real service lacks, a path of no endpoint), its one read, which also
// lets the connection be reused, and notes whom it was for (NoteUnopened).
func (d *Door) NoteUnread(c echo.Context) {
	body, _ := httpx.ReadBody(c)
	d.NoteUnopened(c, body)
}

// Unrouted notes whom a call to no endpoint of the host was for (404,
// 405) before next answers it.
func (d *Door) Unrouted(next echo.HTTPErrorHandler) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		var he *echo.HTTPError
		if o := httpx.OutcomeOf(c); errors.As(err, &he) && (he.Code == http.StatusNotFound || he.Code == http.StatusMethodNotAllowed) && o.Channel == "" && o.ChannelID == "" {
			d.NoteUnread(c)
		}
		next(err, c)
	}
}

// PanicError is a panic on a request, its stack kept for the log.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// answered reports whether err is an answer the error renderer writes
// as it is (an answer in the host's shape, a router error, a client gone).
func answered(err error) bool {
	var e *httpx.Error
	var he *echo.HTTPError
	return errors.As(err, &e) || errors.As(err, &he) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, park.ErrParked)
}

// fail logs err (with the stack of a panic) and answers op's platform
// failure in its host's shape.
func (d *Door) fail(c echo.Context, op contract.Op, call *Call, err error) error {
	if d.Log != nil {
		attrs := []any{"endpoint", op.Name, "path", c.Request().URL.Path, "err", err}
		var p *PanicError
		if errors.As(err, &p) {
			attrs = append(attrs, "stack", string(p.Stack))
		}
		d.Log.Error("internal error", attrs...)
	}
	if d.Failures[op.Dialect] == nil {
		return err
	}
	answer := d.Failures[op.Dialect](op, call)
	answer.Status, answer.Reason = http.StatusInternalServerError, "internal error: "+err.Error()
	return answer
}
