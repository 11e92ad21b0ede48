package sweep

import (
	"encoding/json"
	"html/template"
	"io"
	"strings"
	"sync"
)

// htmlCell is one result as the page shows it.
type htmlCell struct {
	Mark, Grade, When, Title, Journal, Diagram, Tests string
}

// htmlFailed is a row whose run failed tests, as the page lists it.
type htmlFailed struct {
	Anchor, ID string
	Tests      []FailedTest
}

type htmlRow struct {
	Endpoint string
	Cells    [][]htmlCell
}

// Parsed on first use, not at start-up (init time is start-up time).
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("sweep").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>rewardsim sweep</title>
<style>
body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:.25em .4em;text-align:center}
th.kind{font-weight:normal;font-size:12px;white-space:nowrap}td{white-space:nowrap}
td.ep{text-align:left;font-family:monospace}
a.m{display:inline-block;min-width:1.4em;text-decoration:none;border-radius:3px;margin:1px;font-weight:bold;color:#fff}
.not-reached{background:#9e9e9e}.handled{background:#2e7d32}.surfaced{background:#f9a825;color:#222!important}
.timed-out{background:#6a1b9a}.unsafe{background:#c62828}
small a{color:#555}
</style></head><body>
<h1>What does our service do when ...?</h1>
<p><code>{{.Command}}</code>, channels like {{.Like}}, {{.Summary}}</p>
<table><tr><th>endpoint</th>{{range .Columns}}<th class="kind" title="{{.Full}}">{{.Short}}</th>{{end}}</tr>
{{range .Rows}}<tr><td class="ep">{{.Endpoint}}</td>{{range .Cells}}<td>{{range .}}<a class="m {{.Grade}}"{{if .Diagram}} href="{{.Diagram}}"{{end}} title="{{.Title}}">{{.Mark}}</a>{{if .Journal}}<small><a href="{{.Journal}}" title="journal slice">j</a></small>{{end}}{{if .Tests}}<small><a href="#{{.Tests}}" title="tests that failed">t</a></small>{{end}}{{end}}</td>{{end}}</tr>
{{end}}</table>
<p>Each cell: one mark per row ({{.Whens}}){{if .Linked}}; the mark links to the sequence diagram of the faulted exchange, <em>j</em> to the run's journal slice{{end}}.
Columns: {{range $i, $c := .Columns}}{{if $i}}, {{end}}<b>{{$c.Short}}</b> {{$c.Full}}{{end}}.<br>
{{range .Legend}}<a class="m {{.Grade}}">{{.Mark}}</a> {{.Grade}} {{end}}</p>
{{range .Baseline}}<p class="baseline">{{.}}</p>
{{end}}{{if .Failed}}<h2>Tests that failed under a fault</h2>
<table class="tests">{{range .Failed}}<tr id="{{.Anchor}}"><td class="ep">{{.ID}}</td><td>{{range $i, $t := .Tests}}{{if $i}}, {{end}}{{if $t.Report}}<a href="{{$t.Report}}">{{$t.Name}}</a>{{else}}{{$t.Name}}{{end}}{{if $t.Strict}} <small>(strict)</small>{{end}}{{end}}</td></tr>
{{end}}</table>{{end}}
</body></html>
`))
})

// HTML writes sweep.html: the matrix, each cell linking to its run's
// journal slice and the sequence diagram of the faulted exchange.
func HTML(w io.Writer, r *Report) error {
	m := arrange(r.Rows)
	var rows []htmlRow
	var failed []htmlFailed
	for _, e := range m.endpoints {
		hr := htmlRow{Endpoint: e}
		for _, c := range m.columns {
			var cell []htmlCell
			for _, res := range m.cells[[2]string{e, c}] {
				title := res.ID + ": " + res.Grade
				for _, s := range []string{res.Next, res.Note} {
					if s != "" {
						title += "; " + s
					}
				}
				hc := htmlCell{Mark: Marks[res.Grade], Grade: res.Grade, When: res.When, Title: title, Journal: res.Journal, Diagram: res.Diagram}
				if res.Tests != nil && len(res.Tests.Failed) > 0 {
					hc.Tests = "tests-" + strings.NewReplacer("/", "-", ":", "-", " ", "-").Replace(res.ID)
					failed = append(failed, htmlFailed{Anchor: hc.Tests, ID: res.ID, Tests: res.Tests.Failed})
				}
				cell = append(cell, hc)
			}
			hr.Cells = append(hr.Cells, cell)
		}
		rows = append(rows, hr)
	}
	type column struct{ Short, Full string }
	var columns []column
	for _, c := range m.columns {
		columns = append(columns, column{label(c), c})
	}
	var legend []htmlCell
	for _, g := range Grades {
		legend = append(legend, htmlCell{Mark: Marks[g], Grade: g})
	}
	return page().Execute(w, map[string]any{"Command": strings.Join(r.Command, " "), "Like": r.Like, "Summary": Summary(r),
		"Columns": columns, "Linked": len(r.Rows) > 0 && r.Rows[0].Diagram != "", "Rows": rows, "Whens": whenOrder(r.When), "Legend": legend,
		"Baseline": append(BaselineLines(r), StrictLines(r)...), "Failed": failed})
}

// tests are the failed tests of a result (none without reports).
func (r Result) tests() []FailedTest {
	if r.Tests == nil {
		return nil
	}
	return r.Tests.Failed
}

// HTMLFromJSON renders a sweep.json as the page, without the links to
// the run files (they are on the machine that swept): what the
// simulator shows of the last sweep reported to it.
func HTMLFromJSON(w io.Writer, raw []byte) error {
	var r Report
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	for i := range r.Rows {
		r.Rows[i].Output, r.Rows[i].Journal, r.Rows[i].Diagram = "", "", ""
		for j := range r.Rows[i].tests() {
			r.Rows[i].Tests.Failed[j].Report = ""
		}
	}
	return HTML(w, &r)
}
