package control

import (
	"bytes"
	"errors"
	"html/template"
	"mime"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/picture"
	"github.com/rewardsim/rewardsim/sim/internal/recfile"
	"github.com/rewardsim/rewardsim/sim/internal/report"
)

// Diagram is GET /__sim/diagram.svg: the sequence diagram of the
// exchanges and webhook attempts the journal filter selects (channel,
// virtualId, endpoint, kind, from, to), oldest first, without the
// simulator's own assets unless ?assets=1.
func (a *API) Diagram(c echo.Context) error {
	f, err := filter(c, 0, 0)
	if err != nil {
		return badRequest(c, err.Error())
	}
	// Paged: only the calls drawn are kept (picture.Tail), whatever the
	// journal holds.
	var keep picture.Tail
	assets := c.QueryParam("assets") != ""
	if err := a.o.Journal.Scan(c.Request().Context(), f, func(e journal.Entry) bool {
		if assets || !picture.IsAsset(e) {
			keep.Add(e.Masked(a.o.Journal.Secrets()))
		}
		return true
	}); err != nil {
		return err
	}
	title := "rewardsim flow"
	for _, k := range []string{"channel", "virtualId", "endpoint"} {
		if v := c.QueryParam(k); v != "" {
			title += " " + k + "=" + v
		}
	}
	var b bytes.Buffer
	if err := keep.Sequence(&b, title); err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.Blob(http.StatusOK, "image/svg+xml", b.Bytes())
}

// RecordingDiagram is POST /__sim/diagram.svg: the sequence diagram of
// the recording file in the body (JSON, at most httpx.MaxBody), drawn
// without replaying it. The simulator's state is not read or changed.
func (a *API) RecordingDiagram(c echo.Context) error {
	if mt, _, _ := mime.ParseMediaType(c.Request().Header.Get(echo.HeaderContentType)); mt != echo.MIMEApplicationJSON {
		return fail(http.StatusUnsupportedMediaType, "a recording file is JSON: send it with Content-Type application/json")
	}
	body, err := httpx.ReadBody(c)
	if errors.Is(err, httpx.ErrTooLarge) {
		return fail(http.StatusRequestEntityTooLarge, "body: %v", err)
	}
	if err != nil {
		return fail(http.StatusBadRequest, "body: %v", err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return fail(http.StatusBadRequest, "the body is empty: send a recording file (schemas/recording.json)")
	}
	rec, err := recfile.Parse(body, a.o.Schemas)
	if err != nil {
		return badBody("", err)
	}
	var out bytes.Buffer
	if err := picture.Sequence(&out, picture.RecordingTitle(rec), picture.RecordingCalls(rec.Steps)); err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.Blob(http.StatusOK, "image/svg+xml", out.Bytes())
}

// reportExtras are the HTML report's example exchanges (each finding's,
// in full) and the picture of the flow it read: the report's channel's
// last calls, or every call's, without the simulator's assets. One more
// paged read keeps only those.
func reportExtras(read report.Source, r report.Report) (report.Extras, error) {
	x := report.Extras{Exchanges: map[uint64]journal.Entry{}}
	want := map[uint64]bool{}
	for _, f := range r.Findings {
		want[f.Example.Seq] = true
	}
	var flow picture.Tail
	if err := read(func(e journal.Entry) bool {
		if want[e.Seq] {
			x.Exchanges[e.Seq] = e
		}
		if !picture.IsAsset(e) && (r.Channel == "" || e.Channel == r.Channel || e.ChannelID == r.Channel) {
			flow.Add(e)
		}
		return true
	}); err != nil {
		return x, err
	}
	var b strings.Builder
	if flow.Sequence(&b, "flow read by the report") == nil {
		x.Diagram = template.HTML(b.String()) // drawn by picture, every text escaped there
	}
	return x, nil
}
