package report

import (
	"html/template"
	"io"
)

var page = template.Must(template.New("report").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>rewardsim conformance report</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
.error{color:#b00020}.warning{color:#a05a00}.pass{color:#1b5e20}code{font-size:90%}</style></head>
<body><h1>Conformance report{{if .Channel}} for {{.Channel}}{{end}}</h1>
<p>{{.Exchanges}} exchanges; {{len .Findings}} finding(s).</p>
{{if .Findings}}<table><tr><th>Clause</th><th>Severity</th><th>Count</th><th>Finding</th><th>Example</th><th>Advice</th></tr>
{{range .Findings}}<tr><td>{{.Clause}}</td><td class="{{.Severity}}">{{.Severity}}</td><td>{{.Count}}</td><td>{{.Title}}</td>
<td>#{{.Example.Seq}} <code>{{.Example.Method}} {{.Example.Path}}</code> HTTP {{.Example.Status}}<br>{{.Example.Detail}}</td><td>{{.Advice}}</td></tr>
{{end}}</table>{{else}}<p class="pass">No findings.</p>{{end}}
<h2>Checks</h2><table><tr><th>Rule</th><th>Clause</th><th>Severity</th><th>What it catches</th></tr>
{{range .Checked}}<tr><td>{{.ID}}</td><td>{{.Clause}}</td><td>{{.Severity}}</td><td>{{.Title}}</td></tr>{{end}}</table>
</body></html>
`))

// HTML renders r as a page.
func HTML(w io.Writer, r Report) error { return page.Execute(w, r) }
