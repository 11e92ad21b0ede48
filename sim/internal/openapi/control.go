package openapi

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"
)

// ControlRoute is one route of the control API, as the simulator serves
// it (echo's form: ":name" for a path parameter).
type ControlRoute struct{ Method, Path string }

// controlBodies names the JSON Schema of each control write's JSON body.
var controlBodies = map[string]string{
	"POST /__sim/channels":                 "control.channel",
	"PATCH /__sim/channels/:name":          "control.channel.patch",
	"POST /__sim/clock":                    "control.clock",
	"POST /__sim/clock/advance":            "control.clock",
	"POST /__sim/faults":                   "control.fault",
	"POST /__sim/switches":                 "control.switch",
	"POST /__sim/scenarios":                "control.scenario",
	"POST /__sim/scenarios/:name/activate": "control.activate",
	"POST /__sim/state/reset":              "control.activate",
	"POST /__sim/webhooks":                 "control.webhook",
	"POST /__sim/verify":                   "control.verify",
	"POST /__sim/sweeps/last":              "sweep",
}

// controlAnswers names the schema of an answer where one is written.
var controlAnswers = map[string]string{
	"GET /__sim/certs/":            "control.certs",
	"POST /__sim/channels":         "control.channel.answer",
	"GET /__sim/channels/:name":    "control.channel.answer",
	"PATCH /__sim/channels/:name":  "control.channel.answer",
	"GET /__sim/clock":             "control.clock.answer",
	"POST /__sim/clock":            "control.clock.answer",
	"POST /__sim/clock/advance":    "control.clock.answer",
	"DELETE /__sim/clock":          "control.clock.answer",
	"POST /__sim/webhooks":         "control.webhook.scheduled",
	"GET /__sim/webhooks/:id":      "control.webhook.push",
	"POST /__sim/webhooks/run":     "control.webhook.run",
	"POST /__sim/verify":           "control.verdict",
	"GET /__sim/sweeps/last":       "sweep",
	"DELETE /__sim/faults/:id":     "control.fault.removed",
	"GET /__sim/switches":          "control.switches",
	"POST /__sim/switches":         "control.switch.answer",
	"DELETE /__sim/switches":       "control.switches",
	"DELETE /__sim/switches/:name": "control.switches",

	// A shared box's channel token (docs/security.md).
	"POST /__sim/channels/:name/token": "control.channel.token",
}

// waitParam is ?wait on the calls that make pushes due, and on reading
// one push (docs/webhooks.md).
var waitParam = map[string]any{
	"name": "wait", "in": "query", "required": false,
	"schema": map[string]any{"type": "string", "pattern": `^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m))+)$`},
	"description": "Wait up to this long (a duration, at most 30s) for the attempts of the pushes that became due " +
		"(GET /__sim/webhooks/{id}: for the push to be delivered, failed, or pending with its next attempt due later). " +
		"Absent: answer at once. Any other query parameter is refused (400).",
}

// switchChannel is ?channel on the switch calls.
var switchChannel = map[string]any{"name": "channel", "in": "query", "required": false,
	"schema": map[string]any{"type": "string"}, "description": "The channel whose switches; absent: every channel's (the active scenario, the overrides of every channel)."}

// controlQueries names the query parameters a control call takes.
var controlQueries = map[string][]any{
	"POST /__sim/clock":         {waitParam},
	"POST /__sim/clock/advance": {waitParam},
	"DELETE /__sim/clock": {waitParam, map[string]any{"name": "channel", "in": "query", "required": true,
		"schema": map[string]any{"type": "string"}, "description": "The channel whose own clock to drop."}},
	"GET /__sim/switches":          {switchChannel},
	"DELETE /__sim/switches":       {switchChannel},
	"DELETE /__sim/switches/:name": {switchChannel},
	"POST /__sim/webhooks":         {waitParam},
	"GET /__sim/webhooks/:id":      {waitParam},
	"POST /__sim/webhooks/run":     {waitParam},
}

// controlTypes are the answers that are not JSON.
var controlTypes = map[string]string{
	"GET /__sim/":                  "text/html",
	"GET /__sim/dashboard":         "text/html",
	"GET /__sim/report.html":       "text/html",
	"GET /__sim/metrics":           "text/plain",
	"GET /__sim/live":              "text/event-stream",
	"GET /__sim/diagram.svg":       "image/svg+xml",
	"POST /__sim/diagram.svg":      "image/svg+xml",
	"GET /__sim/certs/service.pem": "application/x-pem-file",
	"GET /__sim/certs/:name":       "application/octet-stream",
	"GET /__sim/scenarios/:name":   "application/yaml",
}

var pathParam = regexp.MustCompile(`:([A-Za-z]+)`)

// ControlDocument describes the control API (tag "control") as an OpenAPI
// 3.1 document: every route the simulator serves, its path parameters,
// the schema of each JSON write body, and control.error for refusals.
// Catch-all routes (method "ANY", "/__sim/*") are the API's 404 and left out.
func ControlDocument(routes []ControlRoute, schemas fs.FS, info Info, controlURL string) ([]byte, error) {
	b := &builder{files: schemas, components: map[string]any{}}
	errRef, err := b.ref("control.error")
	if err != nil {
		return nil, err
	}
	paths := map[string]any{}
	for _, r := range routes {
		if r.Method == "ANY" || strings.Contains(r.Path, "*") {
			continue
		}
		path := pathParam.ReplaceAllString(r.Path, "{$1}")
		item, _ := paths[path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[path] = item
		}
		o, err := b.controlOperation(r, errRef)
		if err != nil {
			return nil, err
		}
		item[strings.ToLower(r.Method)] = o
	}
	return b.document(map[string]any{
		"title":       "rewardsim control API",
		"version":     info.Version,
		"description": "The simulator's own API under /__sim/: scenarios, channels, state, clock, faults, webhooks, journal, recordings, reports, test-only keys.",
	}, map[string]any{
		"controlToken": map[string]any{"type": "apiKey", "in": "header", "name": "X-Rewardsim-Control-Token"},
	}, map[string]any{
		"servers": []any{map[string]any{
			"url": "{controlBaseUrl}", "description": "the control listener",
			"variables": map[string]any{"controlBaseUrl": map[string]any{"default": controlURL}},
		}},
		"tags":  []any{map[string]any{"name": "control", "description": "rewardsim's control API"}},
		"paths": paths,
	})
}

// controlOperation is r's operation: its parameters, its JSON body's
// schema, its answer's, and errRef for refusals.
func (b *builder) controlOperation(r ControlRoute, errRef map[string]any) (map[string]any, error) {
	key := r.Method + " " + r.Path
	o := map[string]any{
		"operationId": operationID(r),
		"tags":        []string{"control"},
		"summary":     key,
		"description": "See docs/control-api.md. Needs the control token when serve has one (X-Rewardsim-Control-Token or Authorization: Bearer), " +
			"and passes the guard: Host loopback, an IP, a single-label name or an allowed host; writes JSON or YAML, never cross-origin.",
	}
	var params []any
	for _, m := range pathParam.FindAllStringSubmatch(r.Path, -1) {
		params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
	}
	params = append(params, controlQueries[key]...)
	if params != nil {
		o["parameters"] = params
	}
	if name, ok := controlBodies[key]; ok {
		ref, err := b.ref(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		content := jsonContent(ref)
		if key == "POST /__sim/scenarios" {
			content["application/yaml"] = map[string]any{"schema": map[string]any{"type": "string", "description": "a scenario file (docs/scenarios.md)"}}
		}
		o["requestBody"] = map[string]any{"required": false, "content": content}
	}
	var answer any = map[string]any{}
	if name, ok := controlAnswers[key]; ok {
		ref, err := b.ref(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		answer = ref
	}
	ok := map[string]any{"description": "Done", "content": jsonContent(answer)}
	if t, found := controlTypes[key]; found {
		ok["content"] = map[string]any{t: map[string]any{"schema": map[string]any{"type": "string"}}}
	}
	o["responses"] = map[string]any{
		"2XX": ok,
		"4XX": response("Refused: the control error shape", errRef),
	}
	return o, nil
}

// operationID is a stable identifier from the method and path:
// GET /__sim/faults/:id -> getFaultsById.
func operationID(r ControlRoute) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(r.Method))
	for _, seg := range strings.Split(strings.TrimPrefix(r.Path, "/__sim"), "/") {
		if seg == "" {
			continue
		}
		if strings.HasPrefix(seg, ":") {
			seg = "by-" + seg[1:]
		}
		for _, part := range strings.FieldsFunc(seg, func(r rune) bool { return r == '-' || r == '.' || r == '_' }) {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	if b.Len() == len(r.Method) {
		b.WriteString("Root")
	}
	return b.String()
}
