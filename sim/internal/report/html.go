package report

import (
	"bytes"
	"encoding/json"
	"html/template"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
)

// Extras are what the page shows beside the report itself.
type Extras struct {
	// Exchanges holds journal entries by sequence number: each finding's
	// example is shown in full (request and answer) beside it.
	Exchanges map[uint64]journal.Entry
	// Diagram is a picture of the journaled flow: SVG drawn by the
	// simulator (package picture), trusted as it escapes its own text.
	Diagram template.HTML
}

// group is the findings of one severity, by clause.
type group struct {
	Severity Severity
	Findings []shown
}

// shown is a finding and, when known, its example exchange.
type shown struct {
	Finding
	Exchange *journal.Entry
}

type pageView struct {
	Report
	Groups  []group
	Counts  map[Severity]int
	Diagram template.HTML
}

// Parsed on first use, not at start-up (init time is start-up time).
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{"pretty": pretty}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>rewardsim conformance report</title>
<style>
*{box-sizing:border-box}
body{margin:0;font-family:"DejaVu Sans",Arial,sans-serif;background:#F3F4F6;color:#111827}
header{background:#111827;color:#F9FAFB;padding:16px 28px}
header h1{margin:0 0 4px;font-size:20px}
header p{margin:0;color:#D1D5DB;font-size:13px}
main{padding:20px 28px;max-width:1400px}
.totals{display:flex;gap:12px;margin:0 0 18px}
.total{background:#fff;border-radius:10px;padding:10px 16px;box-shadow:0 2px 8px rgba(0,0,0,.06);font-size:13px}
.total b{display:block;font-size:22px}
.total.error b,.sev.error{color:#B91C1C}.total.warning b,.sev.warning{color:#B45309}.total.info b,.sev.info{color:#1D4ED8}
h2{font-size:17px;margin:22px 0 10px}
.finding{display:grid;grid-template-columns:minmax(280px,2fr) 3fr;gap:16px;background:#fff;border-radius:12px;padding:14px 18px;margin:0 0 14px;box-shadow:0 2px 8px rgba(0,0,0,.06);border-left:5px solid #9CA3AF}
.finding.error{border-left-color:#B91C1C}.finding.warning{border-left-color:#B45309}.finding.info{border-left-color:#1D4ED8}
.finding h3{margin:0 0 6px;font-size:15px}
.clause{display:inline-block;background:#EEF2FF;border-radius:6px;padding:1px 8px;font-size:12px;margin-right:6px}
.advice{font-size:13px;color:#374151}
.example{font-size:12px;min-width:0}
.example pre{margin:4px 0 8px;background:#F9FAFB;border:1px solid #E5E7EB;border-radius:8px;padding:8px;overflow:auto;max-height:220px}
.pass{color:#047857}
.diagram{background:#fff;border-radius:12px;padding:10px;overflow:auto;max-height:700px}
table{border-collapse:collapse;width:100%;background:#fff;font-size:13px}
td,th{border-bottom:1px solid #E5E7EB;padding:5px 8px;text-align:left;vertical-align:top}
code{font-size:90%}
</style></head>
<body><header><h1>Conformance report{{if .Channel}} for {{.Channel}}{{end}}</h1>
<p>{{.Exchanges}} exchanges; {{len .Findings}} finding(s){{if .JournalDropped}}; the journal dropped {{.JournalDropped}} exchanges under load, so findings may be missing{{end}}.</p></header>
<main>
<div class="totals">{{range $s := .Severities}}<div class="total {{$s}}"><b>{{index $.Counts $s}}</b>{{$s}}</div>{{end}}</div>
{{range .Groups}}<h2 class="sev {{.Severity}}">{{.Severity}}</h2>
{{range .Findings}}<article class="finding {{.Severity}}" data-clause="{{.Clause}}" data-rule="{{.ID}}">
<div><h3><span class="clause">{{.Clause}}</span>{{.Title}}</h3>
<p class="advice">{{.Advice}}</p>{{with .Reading}}<p class="advice"><b>The simulator's reading:</b> {{.}}</p>{{end}}<p class="advice">{{.Count}} time(s); rule <code>{{.ID}}</code>.</p></div>
<div class="example"><b>Example #{{.Example.Seq}}</b> <code>{{.Example.Method}} {{.Example.Path}}</code> HTTP {{.Example.Status}}<br>{{.Example.Detail}}
{{with .Exchange}}{{with .Request.Body}}<div>request</div><pre>{{pretty .}}</pre>{{end}}{{with .Request.BDATA}}<div>request BDATA, decoded</div><pre>{{pretty .}}</pre>{{end}}{{with .Response.Body}}<div>answer</div><pre>{{pretty .}}</pre>{{end}}{{with .Response.Text}}<div>answer</div><pre>{{.}}</pre>{{end}}{{end}}</div>
</article>{{end}}{{end}}
{{if not .Findings}}<p class="pass">No findings.</p>{{end}}
{{if .Diagram}}<h2>Flow</h2><div class="diagram">{{.Diagram}}</div>{{end}}
<h2>Checks</h2><table><tr><th>Rule</th><th>Clause</th><th>Severity</th><th>What it catches</th></tr>
{{range .Checked}}<tr><td>{{.ID}}</td><td>{{.Clause}}</td><td class="sev {{.Severity}}">{{.Severity}}</td><td>{{.Title}}</td></tr>{{end}}</table>
{{with .NotCheckable}}<h2 id="not-checkable">Not checkable from here</h2><p>No finding says nothing about these: the journal does not show them.</p>
<table><tr><th>What</th><th>How to test it</th></tr>{{range .}}<tr><td>{{.Title}}</td><td>{{.How}}</td></tr>{{end}}</table>{{end}}
</main></body></html>
`))
})

// Severities in the order the page shows them.
func (pageView) Severities() []Severity { return []Severity{Error, Warning, Info} }

// HTML renders r as a page.
func HTML(w io.Writer, r Report) error { return HTMLPage(w, r, Extras{}) }

// HTMLPage renders r as a page: findings grouped by severity, then
// clause, each beside its example exchange; then the flow and the checks.
func HTMLPage(w io.Writer, r Report, x Extras) error {
	v := pageView{Report: r, Counts: map[Severity]int{}, Diagram: x.Diagram}
	for _, sev := range v.Severities() {
		g := group{Severity: sev}
		for _, f := range r.Findings {
			if f.Severity != sev {
				continue
			}
			s := shown{Finding: f}
			if e, ok := x.Exchanges[f.Example.Seq]; ok {
				s.Exchange = &e
			}
			g.Findings = append(g.Findings, s)
		}
		slices.SortStableFunc(g.Findings, func(a, b shown) int { return strings.Compare(a.Clause, b.Clause) })
		v.Counts[sev] = len(g.Findings)
		if len(g.Findings) > 0 {
			v.Groups = append(v.Groups, g)
		}
	}
	return page().Execute(w, v)
}

// pretty indents a JSON body for reading.
func pretty(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}
