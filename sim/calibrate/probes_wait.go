package calibrate

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// The waiting probe: a session's lifetime shows only once it has run
// out, so it is watched, for at most Options.Wait, through the page a
// publisher's app opens with it (SESS-2: a closed session gets the blank
// initial screen).

// maxPolls bounds the calls one wait spends watching.
const maxPolls = 30

// minPoll is the closest two looks at a session are spaced.
const minPoll = time.Second

// microsite opens the hosted microsite for a session, as the app's WebView does.
func (r *run) microsite(sessionID, vid, note string) (*Exchange, error) {
	q := url.Values{"sessionId": {sessionID}, "virtualId": {vid}, "channel": {r.t.Channel}}
	e := &Exchange{Op: "microsite", Method: http.MethodGet, URL: r.t.BankURL + "/microsite?" + q.Encode(), Header: http.Header{}, Note: note}
	return e, r.send(e)
}

// tagName finds the HTML elements of a page, in order.
var tagName = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9-]*)`)

// pageShape is a page's status and elements: the blank screen of a closed
// session has one shape whatever its reason, the user's page another.
func pageShape(e *Exchange) string {
	var b strings.Builder
	b.WriteString(http.StatusText(e.Status))
	for _, m := range tagName.FindAllStringSubmatch(string(e.Resp), -1) {
		b.WriteString(" " + strings.ToLower(m[1]))
	}
	return b.String()
}

// session is one session watched: its issue and the looks that bound
// its lifetime (lastOpen nil: no look found it open).
type session struct {
	id, vid          string
	issue            *Exchange
	lastOpen, closed *Exchange
}

// span bounds the lifetime the looks show: over lo, at most hi, each
// measured so it surely holds the service's own instants.
func (s *session) span() (lo, hi time.Duration) {
	if s.lastOpen != nil {
		lo = s.lastOpen.Sent.Sub(s.issue.At)
	}
	return lo, s.closed.At.Sub(s.issue.Sent)
}

// issueSession calls GenerateSessionInfoV2 for a new user.
func (r *run) issueSession() (*session, error) {
	s := &session{vid: r.user()}
	e, err := r.signed("GenerateSessionInfoV2", r.t.BankURL+"/api/GenerateSessionInfoV2", map[string]string{"bName": r.t.Channel, "virtualId": s.vid}, nil)
	if err != nil {
		return nil, err
	}
	if err := r.send(e); err != nil {
		return nil, err
	}
	raw, _, ok := envelopeOf(e.Resp)
	var b struct {
		SessionID string `json:"sessionId"`
	}
	if !ok || json.Unmarshal(raw, &b) != nil || b.SessionID == "" {
		return nil, ambiguous("GenerateSessionInfoV2 gave no sessionId: %s", describe(e))
	}
	r.remember(b.SessionID)
	s.id, s.issue = b.SessionID, e
	return s, nil
}

// pages are the shapes of the open and the closed page.
type pages struct{ open, closed string }

// watch looks at s from first on, step apart, until its page closes or
// the next look would come after end.
func (r *run) watch(s *session, p pages, first time.Time, step time.Duration, end time.Time) error {
	for next := first; !next.After(end); {
		if err := r.sleep(next.Sub(r.o.Now())); err != nil {
			return err
		}
		e, err := r.microsite(s.id, s.vid, "the session, "+Duration(r.o.Now().Sub(s.issue.At).Round(time.Second))+" after it was issued")
		if err != nil {
			return err
		}
		switch pageShape(e) {
		case p.open:
			s.lastOpen, next = e, e.Sent.Add(step)
		case p.closed:
			s.closed = e
			return nil
		default:
			return ambiguous("the session's page is neither the open page nor the closed one: %s", describe(e))
		}
	}
	return nil
}

// fineLooks is how many looks the second session's watch spends on the
// span the first one left.
const fineLooks = 10

func probeSessionTTL(r *run) error {
	const probe, name = "session-ttl", "sessions.ttl"
	s, err := r.issueSession()
	if err != nil {
		return err
	}
	closed, err := r.microsite("CALNOSESSION"+strings.ToUpper(r.o.RunID), s.vid, "a sessionId the service never issued")
	if err != nil {
		return err
	}
	if s.lastOpen, err = r.microsite(s.id, s.vid, "the session, just issued"); err != nil {
		return err
	}
	p := pages{open: pageShape(s.lastOpen), closed: pageShape(closed)}
	if p.open == p.closed {
		return ambiguous("the page of a session just issued looks like the page of a sessionId never issued: %s", describe(s.lastOpen))
	}
	end := s.issue.Sent.Add(r.o.Wait)
	// The looks the budget allows, keeping a second session's for later
	// when there are enough, half of them when not.
	left := r.o.Budget - r.calls
	step := max(minPoll, r.o.Wait/time.Duration(max(1, min(maxPolls, max(left/2, left-fineLooks-1)))))
	if err := r.watch(s, p, s.lastOpen.Sent.Add(step), step, end); err != nil {
		return err
	}
	if s.closed == nil {
		f := r.unsure(probe, name, needs{CauseWait, "needs waiting longer: the session was still open after --wait " + Duration(r.o.Wait) +
			": it lasts longer, or never runs out"})
		f.AtLeast = Duration(s.lastOpen.Sent.Sub(s.issue.At).Truncate(time.Second))
		f.Evidence = []string{s.issue.Evidence(r.mask), s.lastOpen.Evidence(r.mask)}
		return nil
	}
	lo, hi := s.span()
	ev := []*Exchange{s.issue, s.lastOpen, s.closed}
	ttl, sure := roundest(lo, hi)
	if !sure && r.o.Now().Add(hi).Before(end) {
		// Two round lifetimes fit the span: a second session, watched
		// closely over it, tells them apart.
		s2, err := r.issueSession()
		if err == nil {
			fine := max(minPoll, (hi-lo)/fineLooks)
			stop := s2.issue.Sent.Add(hi + fine)
			if stop.After(end) {
				stop = end
			}
			err = r.watch(s2, p, s2.issue.At.Add(lo), fine, stop)
		}
		switch {
		case err != nil && !errors.Is(err, errBudget):
			return err
		case err == nil && s2.closed != nil:
			lo2, hi2 := s2.span()
			lo, hi = max(lo, lo2), min(hi, hi2)
			ttl, sure = roundest(lo, hi)
			ev = append(ev, s2.issue, s2.lastOpen, s2.closed)
		}
	}
	span := "open " + Duration(lo.Round(100*time.Millisecond)) + " after it was issued, closed " + Duration(hi.Round(100*time.Millisecond))
	if !sure {
		f := r.unsure(probe, name, needs{CauseWait, "needs waiting longer: the session's page closed between " + span +
			", a span more than one round lifetime fits; a longer --wait lets a second session be watched closer"})
		f.AtLeast = Duration(lo.Truncate(time.Second))
		f.Evidence = r.evidence(ev)
		return nil
	}
	r.set(probe, name, Duration(ttl), ev...).Note = "read from when the session's page closed: " + span
	return nil
}

// evidence is the exchanges' evidence lines, secrets masked.
func (r *run) evidence(ev []*Exchange) []string {
	var out []string
	for _, e := range ev {
		if e != nil {
			out = append(out, e.Evidence(r.mask))
		}
	}
	return out
}

// sleep waits d, or until the run is cancelled.
func (r *run) sleep(d time.Duration) error {
	if d <= 0 {
		return nil
	}
	select {
	case <-time.After(d):
		return nil
	case <-r.ctx.Done():
		r.stopped = "cancelled while waiting: " + r.ctx.Err().Error()
		return errStopped
	}
}

// roundUnits are the units a lifetime is read in, the roundest first.
var roundUnits = []time.Duration{time.Hour, 30 * time.Minute, 15 * time.Minute, 10 * time.Minute, 5 * time.Minute,
	time.Minute, 30 * time.Second, 15 * time.Second, 10 * time.Second, 5 * time.Second, time.Second}

// roundest is the roundest duration over lo and at most hi (a lifetime
// a service sets is a round one, and the span only bounds it); sure when
// no other as round fits the span, nor two of the next rounder-but-one
// (over 0s and at most 20s, 15s is the roundest, but 10s and 20s fit as
// well as it does: not sure).
func roundest(lo, hi time.Duration) (time.Duration, bool) {
	fits := func(u time.Duration) (first, n time.Duration) { first = lo/u + 1; return first, hi/u - first + 1 }
	for i, u := range roundUnits {
		if first, n := fits(u); n > 0 {
			sure := n == 1
			if i+1 < len(roundUnits) {
				_, finer := fits(roundUnits[i+1])
				sure = sure && finer <= 1
			}
			return first * u, sure
		}
	}
	return hi.Round(100 * time.Millisecond), false
}
