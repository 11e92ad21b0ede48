// Package picture draws the journal as SVG: a sequence diagram of a flow
// (who called whom, in order, with the status and the fault that fired)
// and a timeline of webhook pushes and their retries. The pictures are
// drawn by the simulator itself, so the dashboard and the report need
// nothing from outside.
package picture

import (
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/coupons"
	"github.com/rewardsim/rewardsim/sim/internal/journal"
)

// Lanes of the sequence diagram, left to right.
const (
	Publisher = "publisher"
	Rewards   = "rewards"
	Bank      = "bank"
	Hotdeals  = "hotdeals"
	Receiver  = "webhook receiver"
)

// Lanes is every lane in drawing order.
var Lanes = []string{Publisher, Rewards, Bank, Hotdeals, Receiver}

// MaxCalls bounds a diagram: beyond it the picture says how many it left out.
const MaxCalls = 400

// Call is one arrow of the diagram and its answer.
type Call struct {
	Seq      uint64
	From, To string
	// Label names the call: the contract operation, else method and path.
	Label  string
	Status int
	Fault  string
	// Reason is the answer's X-Rewardsim-Reason when no fault fired.
	Reason string
	// Error is a webhook attempt's transport error (no status).
	Error string
}

// Calls turns journal entries into the diagram's calls, in journal order.
func Calls(es []journal.Entry) []Call {
	out := make([]Call, 0, len(es))
	for _, e := range es {
		c := Call{Seq: e.Seq, From: Publisher, To: laneOf(e), Label: e.Endpoint, Status: e.Status, Fault: e.Fault, Error: e.Error}
		if !strings.HasPrefix(e.Reason, journal.FaultPrefix) {
			c.Reason = e.Reason
		}
		if c.Label == "" {
			c.Label = e.Method + " " + e.Path
		}
		if e.Kind == journal.KindWebhook {
			// Webhook pushes tell the publisher about coupon offers: the
			// hotdeals side calls the publisher's receiver.
			c.From, c.To, c.Label = Hotdeals, Receiver, "webhook push"
		}
		out = append(out, c)
	}
	return out
}

// laneOf is the host that served an exchange: the contract's host of its
// operation, else the listener (split mode), else by the simulator's own
// paths (tracking is the rewards host's, assets and coupon redirects the
// microsite's and hotdeals').
func laneOf(e journal.Entry) string {
	switch h := e.Host; h {
	case Rewards, Bank, Hotdeals:
		return h
	}
	switch e.Listener {
	case Rewards, Bank, Hotdeals:
		return e.Listener
	}
	switch {
	case strings.HasPrefix(e.Path, AssetPrefix), strings.HasPrefix(e.Path, "/microsite"), strings.HasPrefix(e.Path, "/sdk/"):
		return Bank
	case strings.HasPrefix(e.Path, coupons.RedirectPrefix):
		return Hotdeals
	}
	return Rewards
}

// AssetPrefix starts the path of the simulator's own assets (the
// microsite's AssetsPath).
const AssetPrefix = "/assets/"

// IsAsset reports whether e fetched one of the simulator's own assets
// (microsite images, styles and scripts) or a browser's favicon: noise
// beside the publisher's calls, so the dashboard hides them by default.
func IsAsset(e journal.Entry) bool {
	return e.Kind == journal.KindExchange && e.Endpoint == "" &&
		(strings.HasPrefix(e.Path, AssetPrefix) || e.Path == "/favicon.ico")
}

// Geometry of the diagram.
const (
	laneGap   = 180
	margin    = 90
	headerH   = 56
	rowH      = 46
	footH     = 30
	arrowHead = 7
)

// Sequence writes the SVG sequence diagram of calls under title. Each
// call is a group with data-seq, data-from, data-to, data-label,
// data-status, data-fault and data-reason, so a test (or a script) can
// read the picture back.
func Sequence(w io.Writer, title string, calls []Call) error {
	left := 0
	if len(calls) > MaxCalls {
		left, calls = len(calls)-MaxCalls, calls[len(calls)-MaxCalls:]
	}
	width := margin*2 + laneGap*(len(Lanes)-1)
	height := headerH + rowH*(len(calls)+1) + footH
	x := map[string]int{}
	for i, l := range Lanes {
		x[l] = margin + i*laneGap
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="sequence" width="%d" height="%d" viewBox="0 0 %d %d" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">`, width, height, width, height)
	fmt.Fprintf(&b, `<title>%s</title><rect width="100%%" height="100%%" fill="#FFFFFF"/>`, esc(title))
	b.WriteString(`<defs><marker id="head" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#374151"/></marker></defs>`)
	for _, l := range Lanes {
		fmt.Fprintf(&b, `<g class="lane" data-lane="%s"><rect x="%d" y="8" width="150" height="30" rx="6" fill="#111827"/><text x="%d" y="28" fill="#F9FAFB" text-anchor="middle" font-weight="bold">%s</text>`, esc(l), x[l]-75, x[l], esc(l))
		fmt.Fprintf(&b, `<line x1="%d" y1="38" x2="%d" y2="%d" stroke="#9CA3AF" stroke-dasharray="4 4"/></g>`, x[l], x[l], height-footH)
	}
	for i, c := range calls {
		y := headerH + rowH*i + 18
		x1, x2 := x[c.From], x[c.To]
		dir := 1
		if x2 < x1 {
			dir = -1
		}
		color, answer := statusLook(c)
		fmt.Fprintf(&b, `<g class="call" data-seq="%d" data-from="%s" data-to="%s" data-label="%s" data-status="%d" data-fault="%s" data-reason="%s">`,
			c.Seq, esc(c.From), esc(c.To), esc(c.Label), c.Status, esc(c.Fault), esc(c.Reason))
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#374151" stroke-width="1.5" marker-end="url(#head)"/>`, x1, y, x2-dir*arrowHead, y)
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">#%d %s</text>`, (x1+x2)/2, y-5, c.Seq, esc(c.Label))
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="1.5" stroke-dasharray="5 3" marker-end="url(#head)"/>`, x2, y+16, x1+dir*arrowHead, y+16, color)
		fmt.Fprintf(&b, `<text class="answer" x="%d" y="%d" text-anchor="middle" fill="%s">%s</text></g>`, (x1+x2)/2, y+29, color, esc(answer))
	}
	foot := fmt.Sprintf("%d calls", len(calls))
	if left > 0 {
		foot = fmt.Sprintf("the last %d calls (%d earlier ones left out)", len(calls), left)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#6B7280">%s</text></svg>`, margin, height-10, esc(foot))
	_, err := io.WriteString(w, b.String())
	return err
}

// statusLook is the colour and the text of a call's answer.
func statusLook(c Call) (color, text string) {
	text = fmt.Sprint(c.Status)
	switch {
	case c.Status == 0:
		color, text = "#B91C1C", "no answer"
		if c.Error != "" {
			text += ": " + clip(c.Error, 60)
		}
	case c.Status < 400:
		color = "#047857"
	case c.Status < 500:
		color = "#B45309"
	default:
		color = "#B91C1C"
	}
	if c.Status != 0 && c.Error != "" {
		text += " " + clip(c.Error, 60)
	}
	if c.Fault != "" {
		text += " · fault " + clip(c.Fault, 50)
	} else if c.Reason != "" {
		text += " · " + clip(c.Reason, 50)
	}
	return color, text
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func esc(s string) string { return html.EscapeString(s) }
