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

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/outcome"
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
	// Outcome is the call's contract outcome (journal.Outcome*), which
	// colours its answer; ErrorCode the coupon errorCode it carried.
	Outcome, ErrorCode string
	// LatencyMs is how long the answer took (0: not known, as in a
	// recording), written on its arrow.
	LatencyMs float64
}

// Calls turns journal entries into the diagram's calls, in journal order.
func Calls(es []journal.Entry) []Call {
	out := make([]Call, 0, len(es))
	for _, e := range es {
		c := Call{Seq: e.Seq, From: Publisher, To: laneOf(e), Label: e.Endpoint, Status: e.Status, Fault: e.Fault, Error: e.Error,
			Outcome: e.Outcome, ErrorCode: e.ErrorCode, LatencyMs: e.LatencyMs}
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
	case strings.HasPrefix(e.Path, contract.CouponRedirectPrefix):
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
	legendH   = 22
	rowH      = 50
	lineH     = 14
	footH     = 30
	arrowHead = 7
	// charW is the widest advance of a 12 px DejaVu Sans character a
	// label is measured with (over-estimated, so text never leaves the box).
	charW = 7.4
)

// OutcomeColors colour an answer by its contract outcome.
var OutcomeColors = map[string]string{
	outcome.Success:   "#047857",
	outcome.Refusal:   "#B45309",
	outcome.Fault:     "#7C3AED",
	outcome.Transport: "#B91C1C",
}

// outcomeWords name the outcomes in the legend.
var outcomeWords = map[string]string{
	outcome.Success:   "success",
	outcome.Refusal:   "refusal (the service said no)",
	outcome.Fault:     "injected fault",
	outcome.Transport: "transport failure (no answer)",
}

// Sequence writes the SVG sequence diagram of calls under title. Each
// call is a group with data-seq, data-from, data-to, data-label,
// data-status, data-outcome, data-fault and data-reason, so a test (or
// a script) can read the picture back. Answers are coloured by their
// contract outcome (a legend says which is which), labels wrap at word
// boundaries and stay inside the picture.
func Sequence(w io.Writer, title string, calls []Call) error {
	var t Tail
	for _, c := range calls {
		t.add(c)
	}
	return t.Sequence(w, title)
}

// Tail keeps the last MaxCalls calls of a stream of entries and counts
// the earlier ones, so a reader that pages through the journal draws it
// with memory bounded by the picture, not the journal.
type Tail struct {
	calls []Call
	next  int
	left  int
}

// Add keeps e's call.
func (t *Tail) Add(e journal.Entry) { t.add(Calls([]journal.Entry{e})[0]) }

func (t *Tail) add(c Call) {
	if len(t.calls) < MaxCalls {
		t.calls = append(t.calls, c)
		return
	}
	t.calls[t.next] = c
	t.next = (t.next + 1) % MaxCalls
	t.left++
}

// Sequence draws the calls kept, saying how many earlier ones were left out.
func (t *Tail) Sequence(w io.Writer, title string) error {
	calls := append(append([]Call(nil), t.calls[t.next:]...), t.calls[:t.next]...)
	return sequence(w, title, calls, t.left)
}

func sequence(w io.Writer, title string, calls []Call, left int) error {
	width := margin*2 + laneGap*(len(Lanes)-1)
	maxChars := int(float64(width-8) / charW)
	type row struct {
		c              Call
		label, answer  []string
		y, height      int
		color, outcome string
	}
	rows := make([]row, len(calls))
	y := headerH + legendH
	for i, c := range calls {
		color, answer, outcome := outcomeLook(c)
		r := row{c: c, color: color, outcome: outcome,
			label: wrap(fmt.Sprintf("#%d %s", c.Seq, c.Label), maxChars), answer: wrap(answer, maxChars)}
		r.y = y + 18 + lineH*(len(r.label)-1)
		r.height = rowH + lineH*(len(r.label)-1+len(r.answer)-1)
		y += r.height
		rows[i] = r
	}
	height := y + rowH + footH
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
	// The legend: one swatch per outcome.
	b.WriteString(`<g class="legend">`)
	lx := 8
	for _, o := range outcome.All {
		w := int(float64(len(outcomeWords[o])) * 6.6) // the legend's words are measured, not over-estimated
		// A white ground keeps the lanes' dashed lines out of the words.
		fmt.Fprintf(&b, `<g data-outcome="%s"><rect x="%d" y="%d" width="%d" height="16" fill="#FFFFFF"/><rect x="%d" y="%d" width="12" height="12" rx="2" fill="%s"/><text x="%d" y="%d" fill="#374151">%s</text></g>`,
			o, lx-2, headerH-10, w+22, lx, headerH-8, OutcomeColors[o], lx+16, headerH+2, esc(outcomeWords[o]))
		lx += 16 + w + 18
	}
	b.WriteString(`</g>`)
	for _, r := range rows {
		c, y := r.c, r.y
		x1, x2 := x[c.From], x[c.To]
		dir := 1
		if x2 < x1 {
			dir = -1
		}
		fmt.Fprintf(&b, `<g class="call" data-seq="%d" data-from="%s" data-to="%s" data-label="%s" data-status="%d" data-outcome="%s" data-fault="%s" data-reason="%s">`,
			c.Seq, esc(c.From), esc(c.To), esc(c.Label), c.Status, r.outcome, esc(c.Fault), esc(c.Reason))
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#374151" stroke-width="1.5" marker-end="url(#head)"/>`, x1, y, x2-dir*arrowHead, y)
		textLines(&b, "label", (x1+x2)/2, y-5-lineH*(len(r.label)-1), width, "#111827", r.label)
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="1.5" stroke-dasharray="5 3" marker-end="url(#head)"/>`, x2, y+16, x1+dir*arrowHead, y+16, r.color)
		textLines(&b, "answer", (x1+x2)/2, y+29, width, r.color, r.answer)
		b.WriteString(`</g>`)
	}
	foot := fmt.Sprintf("%d calls", len(calls))
	if left > 0 {
		foot = fmt.Sprintf("the last %d calls (%d earlier ones left out)", len(calls), left)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#6B7280">%s</text></svg>`, 8, height-10, esc(foot))
	_, err := io.WriteString(w, b.String())
	return err
}

// textLines writes lines centred on cx, moved in so the widest stays
// inside [4, width-4].
func textLines(b *strings.Builder, class string, cx, y, width int, fill string, lines []string) {
	widest := 0
	for _, l := range lines {
		widest = max(widest, len([]rune(l)))
	}
	half := int(float64(widest)*charW/2) + 1
	cx = max(cx, 4+half)
	cx = min(cx, width-4-half)
	fmt.Fprintf(b, `<text class="%s" x="%d" y="%d" text-anchor="middle" fill="%s">`, class, cx, y, fill)
	for i, l := range lines {
		if i == 0 {
			fmt.Fprintf(b, `<tspan x="%d">%s</tspan>`, cx, esc(l))
			continue
		}
		fmt.Fprintf(b, `<tspan x="%d" dy="%d">%s</tspan>`, cx, lineH, esc(l))
	}
	b.WriteString(`</text>`)
}

// wrap breaks s into lines of at most n characters at spaces; a word
// longer than a line is split (the only cut, and only of such a word).
func wrap(s string, n int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		for len([]rune(word)) > n {
			if line != "" {
				lines, line = append(lines, line), ""
			}
			r := []rune(word)
			lines, word = append(lines, string(r[:n])), string(r[n:])
		}
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) <= n:
			line += " " + word
		default:
			lines, line = append(lines, line), word
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}

// outcomeLook is the colour, the text and the outcome of a call's answer.
// A call from before outcomes were journaled is read by its status.
func outcomeLook(c Call) (color, text, kind string) {
	kind = c.Outcome
	if kind == "" {
		switch {
		case c.Fault != "":
			kind = outcome.Fault
		case c.Status == 0:
			kind = outcome.Transport
		case c.Status >= 400 || c.Reason != "" || c.ErrorCode != "":
			kind = outcome.Refusal
		default:
			kind = outcome.Success
		}
	}
	text = fmt.Sprint(c.Status)
	if c.Status == 0 {
		text = "no answer"
		if c.Error != "" {
			text += ": " + c.Error
		}
	} else if c.Error != "" {
		text += " " + c.Error
	}
	if c.ErrorCode != "" {
		text += " " + c.ErrorCode
	}
	if c.Fault != "" {
		text += " · fault " + c.Fault + committed[c.Fault]
	} else if c.Reason != "" {
		text += " · " + c.Reason
	}
	if c.LatencyMs > 0 {
		text += " · " + took(c.LatencyMs)
	}
	return OutcomeColors[kind], text, kind
}

// committed says, on the arrow of a fault that withholds the answer of a
// committed call, that the call's effect stands (CPN-4).
var committed = map[string]string{
	fault.CommitThenDelay: " (the claim was committed, answered late)",
	fault.CommitThenDrop:  " (the claim was committed, no answer)",
}

// took is a latency as the arrows show it.
func took(ms float64) string {
	if ms >= 1000 {
		return fmt.Sprintf("%.1f s", ms/1000)
	}
	return fmt.Sprintf("%.1f ms", ms)
}

func esc(s string) string { return html.EscapeString(s) }
