package calibrate

import (
	"encoding/json"
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

func probeSessionTTL(r *run) error {
	const probe, name = "session-ttl", "sessions.ttl"
	vid := r.user()
	issue, err := r.signed("GenerateSessionInfoV2", r.t.BankURL+"/api/GenerateSessionInfoV2", map[string]string{"bName": r.t.Channel, "virtualId": vid}, nil)
	if err != nil {
		return err
	}
	if err := r.send(issue); err != nil {
		return err
	}
	raw, _, ok := envelopeOf(issue.Resp)
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	if !ok || json.Unmarshal(raw, &sess) != nil || sess.SessionID == "" {
		return ambiguous("GenerateSessionInfoV2 gave no sessionId: %s", describe(issue))
	}
	r.remember(sess.SessionID)
	closed, err := r.microsite("CALNOSESSION"+strings.ToUpper(r.o.RunID), vid, "a sessionId the service never issued")
	if err != nil {
		return err
	}
	open, err := r.microsite(sess.SessionID, vid, "the session, just issued")
	if err != nil {
		return err
	}
	if pageShape(open) == pageShape(closed) {
		return ambiguous("the page of a session just issued looks like the page of a sessionId never issued: %s", describe(open))
	}
	polls := min(maxPolls, r.o.Budget-r.calls)
	step := max(minPoll, r.o.Wait/time.Duration(max(polls, 1)))
	end := issue.Sent.Add(r.o.Wait)
	lastOpen := open
	for {
		next := lastOpen.Sent.Add(step)
		if next.After(end) {
			f := r.unsure(probe, name, needs{CauseWait, "needs waiting longer: the session was still open after --wait " + Duration(r.o.Wait) +
				": it lasts longer, or never runs out"})
			f.AtLeast = Duration(lastOpen.Sent.Sub(issue.At).Truncate(time.Second))
			f.Evidence = []string{issue.Evidence(r.mask), lastOpen.Evidence(r.mask)}
			return nil
		}
		if err := r.sleep(next.Sub(r.o.Now())); err != nil {
			return err
		}
		e, err := r.microsite(sess.SessionID, vid, "the session, "+Duration(r.o.Now().Sub(issue.At).Round(time.Second))+" after it was issued")
		if err != nil {
			return err
		}
		switch pageShape(e) {
		case pageShape(open):
			lastOpen = e
		case pageShape(closed):
			// It was open at lastOpen and closed at e, each measured so the
			// span surely holds the service's own instants.
			ttl := roundest(lastOpen.Sent.Sub(issue.At), e.At.Sub(issue.Sent))
			r.set(probe, name, Duration(ttl), issue, lastOpen, e).Note = "read from when the session's page closed: open " +
				Duration(lastOpen.Sent.Sub(issue.At).Round(100*time.Millisecond)) + " after it was issued, closed " + Duration(e.At.Sub(issue.Sent).Round(100*time.Millisecond))
			return nil
		default:
			return ambiguous("the session's page is neither the open page nor the closed one: %s", describe(e))
		}
	}
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

// roundest is the roundest duration over lo and at most hi: a lifetime
// a service sets is a round one, and the span only bounds it.
func roundest(lo, hi time.Duration) time.Duration {
	for _, u := range roundUnits {
		if k := lo/u + 1; k*u <= hi {
			return k * u
		}
	}
	return hi.Round(100 * time.Millisecond)
}
