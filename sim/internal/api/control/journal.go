package control

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/match"
	"github.com/rewardsim/rewardsim/sim/internal/recfile"
	"github.com/rewardsim/rewardsim/sim/internal/replay"
	"github.com/rewardsim/rewardsim/sim/internal/report"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

// Paging of GET /__sim/journal.
const (
	defaultPage = 100
	maxPage     = 1000
)

// badRequest answers in the control API's error shape, like every call.
func badRequest(_ echo.Context, msg string) error { return fail(http.StatusBadRequest, "%s", msg) }

// filter reads the journal filter of a query string.
func filter(c echo.Context, defLimit, maxLimit int) (journal.Filter, error) {
	q := c.QueryParams()
	f := journal.Filter{Channel: q.Get("channel"), VirtualID: q.Get("virtualId"), Endpoint: q.Get("endpoint"), Kind: q.Get("kind"), Limit: defLimit}
	for name, dst := range map[string]*time.Time{"from": &f.From, "to": &f.To} {
		if v := q.Get(name); v != "" {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return f, fmt.Errorf("%s: %q is not an RFC 3339 time", name, v)
			}
			*dst = t
		}
	}
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return f, fmt.Errorf("after: %q is not a sequence number", v)
		}
		f.After = n
	}
	for _, w := range q["where"] {
		p, err := match.ParseText(w)
		if err != nil {
			return f, err
		}
		f.Where = append(f.Where, p)
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || (maxLimit > 0 && n > maxLimit) {
			return f, fmt.Errorf("limit: %q is not a number from 1 to %d", v, maxLimit)
		}
		f.Limit = n
	}
	return f, nil
}

// journalParams are the query parameters GET /__sim/journal knows.
var journalParams = []string{"after", "channel", "endpoint", "from", "kind", "limit", "to", "virtualId", "where"}

// strictQuery refuses a query parameter not in known: a misspelt filter
// would otherwise select everything.
func strictQuery(c echo.Context, known []string) error {
	for name := range c.QueryParams() {
		if !slices.Contains(known, name) {
			return fmt.Errorf("unknown query parameter %q: known are %s", name, strings.Join(known, ", "))
		}
	}
	return nil
}

// UnsettledHeader names the exchange a journal page was read without:
// its answer had started but its client had not read it (journal.SettleWait).
const UnsettledHeader = "X-Rewardsim-Unsettled"

// Journal is one page of the journal's entries, filtered.
func (a *API) Journal(c echo.Context) error {
	if err := strictQuery(c, journalParams); err != nil {
		return badRequest(c, err.Error())
	}
	f, err := filter(c, defaultPage, maxPage)
	if err != nil {
		return badRequest(c, err.Error())
	}
	// Every exchange answered before this call is in the page, but for
	// one whose client stopped reading: named in a header, not waited for
	// (nor one of another channel than the page's).
	var un *journal.Unsettled
	if err := a.o.Journal.Settle(c.Request().Context(), f.Channel); errors.As(err, &un) {
		c.Response().Header().Set(UnsettledHeader, strconv.FormatUint(un.Seq, 10))
	} else if err != nil {
		return err
	}
	p, err := a.o.Journal.Query(c.Request().Context(), f)
	if err != nil {
		return err
	}
	for i := range p.Entries {
		p.Entries[i] = p.Entries[i].Masked(a.o.Journal.Secrets())
	}
	return c.JSON(http.StatusOK, p)
}

// ResetJournal empties the journal, or with ?channel=X drops X's
// entries only.
func (a *API) ResetJournal(c echo.Context) error {
	if err := strictQuery(c, []string{"channel"}); err != nil {
		return badRequest(c, err.Error())
	}
	if ch := c.QueryParam("channel"); ch != "" {
		if err := a.o.Journal.ResetChannel(c.Request().Context(), ch); err != nil {
			return internal(err)
		}
		return c.NoContent(http.StatusNoContent)
	}
	if err := a.o.Journal.Reset(c.Request().Context()); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// Recording writes a recording file of the journal's exchanges, filtered
// (GET /__sim/recording; /__sim/session is its former name, kept for
// existing scripts). It streams: the journal is read a page at a time,
// twice (replay.Stream; three times for a channel, whose calls that
// name none are known only once all its answers are read), so memory is
// bounded by a page and the indexes of handed-out values, not by the
// journal (issue 23).
func (a *API) Recording(c echo.Context) error {
	f, err := filter(c, 0, 0)
	if err != nil {
		return badRequest(c, err.Error())
	}
	// Webhook attempts too: a delivered push becomes a control step.
	f.Kind = ""
	channel := f.Channel
	f.Channel = "" // the channel's microsite and tracking calls name none (channelSlice)
	ctx := c.Request().Context()
	read := func(fn func(journal.Entry) bool) error {
		n := 0
		return a.o.Journal.Scan(ctx, f, func(e journal.Entry) bool {
			if f.Limit > 0 && n == f.Limit {
				return false
			}
			n++
			return fn(e)
		})
	}
	src := replay.Source(read)
	if channel != "" {
		sl, err := learnChannel(read, channel)
		if err != nil {
			return err
		}
		src = sl.source(read)
	}
	// The channels the exported entries name, for Against.
	named := map[string]bool{}
	noting := func(fn func(journal.Entry) bool) error {
		return src(func(e journal.Entry) bool {
			named[e.Channel], named[e.ChannelID] = true, true
			return fn(e)
		})
	}
	name := c.QueryParam("name")
	if name == "" {
		name = "recording"
	}
	o := replay.BuildOptions{Name: name, Description: c.QueryParam("description"), Secrets: a.o.Journal.Secrets()}
	// Set before the first byte is written; an error of the first read
	// is still answered in the control API's shape.
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	_, err = replay.Stream(c.Response(), noting, o, func(r *recfile.Recording) { r.Against = a.against(named) })
	return err
}

// Report is the conformance report (HTML for ?format=html or Accept: text/html).
func (a *API) Report(c echo.Context) error { return a.report(c, false) }

// ReportHTML is the conformance report as a page.
func (a *API) ReportHTML(c echo.Context) error { return a.report(c, true) }

func (a *API) report(c echo.Context, html bool) error {
	j := a.o.Journal
	o := report.Options{Channel: c.QueryParam("channel"), LatencyP99: a.latencyP99}
	if v := c.QueryParam("refTokenPerHour"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return badRequest(c, fmt.Sprintf("refTokenPerHour: %q is not a positive number", v))
		}
		o.RefTokenPerHour = n
	}
	switch v := c.QueryParam("noCardsRendered"); v {
	case "", "false":
	case "true":
		o.NoCardsRendered = true
	default:
		return badRequest(c, fmt.Sprintf("noCardsRendered: %q is not true or false", v))
	}
	// Only the time range narrows what is read: the channel is the
	// report's own filter, because tracking GETs carry no channel.
	f, err := filter(c, 0, 0)
	if err != nil {
		return badRequest(c, err.Error())
	}
	// Paged (issue 23): the rules fold over the journal a page at a time,
	// masked as the journal API shows it (its examples quote requests).
	ctx := c.Request().Context()
	read := func(fn func(journal.Entry) bool) error {
		return j.Scan(ctx, journal.Filter{From: f.From, To: f.To}, func(e journal.Entry) bool { return fn(e.Masked(j.Secrets())) })
	}
	r, err := report.BuildFrom(read, o)
	if err != nil {
		return err
	}
	r.JournalDropped = j.Dropped()
	if html || c.QueryParam("format") == "html" || strings.Contains(c.Request().Header.Get("Accept"), "text/html") {
		x, err := reportExtras(read, r)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := report.HTMLPage(&buf, r, x); err != nil {
			return err
		}
		return c.HTMLBlob(http.StatusOK, buf.Bytes())
	}
	return c.JSON(http.StatusOK, r)
}

// against names what the exported entries were made against: the
// scenario in force for their channels (named: the channel names and
// CHANNELIDs the entries carry; when one scenario governs them all) and
// the run-time fault rules that apply to those channels, as they stand
// at export.
func (a *API) against(named map[string]bool) *recfile.Against {
	names := map[string]bool{}
	for ch := range named {
		if ch == "" {
			continue
		}
		if _, _, ok := a.scenarios.ByChannelName(ch); ok {
			names[ch] = true
		} else if m, _, ok := a.scenarios.ByChannelID(ch); ok {
			names[m.Name] = true
		}
	}
	channels := slices.Sorted(maps.Keys(names))
	var s *scenario.Scenario
	for _, ch := range channels {
		in := a.scenarios.ActiveFor(ch)
		if s != nil && in.Name != s.Name {
			s = nil // several scenarios: the recording names none
			break
		}
		s = in
	}
	if len(channels) == 0 {
		s = a.scenarios.Active()
	}
	if s == nil {
		return nil
	}
	ag := &recfile.Against{Scenario: s.Name, SHA256: s.SHA256, Channels: channels}
	for _, st := range a.o.Plane.Faults().List() {
		if st.Channel != "" && !names[st.Channel] {
			if m, _, ok := a.scenarios.ByChannelID(st.Channel); !ok || !names[m.Name] {
				continue
			}
		}
		raw, err := json.Marshal(st.Rule)
		if err == nil {
			ag.Faults = append(ag.Faults, raw)
		}
	}
	return ag
}
