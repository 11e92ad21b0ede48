package picture

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Stage is one bar of a funnel.
type Stage struct {
	Name  string
	Count int
}

// Funnel writes a horizontal bar chart of stages, widest first as given.
// Each bar is a group with data-stage and data-count.
func Funnel(w io.Writer, title string, stages []Stage) error {
	const barW, rowH, labelW = 320, 26, 130
	top := 1
	for _, s := range stages {
		top = max(top, s.Count)
	}
	height := 30 + rowH*len(stages) + 8
	width := labelW + barW + 70
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="funnel" width="%d" height="%d" viewBox="0 0 %d %d" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">`, width, height, width, height)
	fmt.Fprintf(&b, `<title>%s</title><text x="0" y="16" font-weight="bold">%s</text>`, esc(title), esc(title))
	for i, s := range stages {
		y := 26 + i*rowH
		bw := barW * s.Count / top
		fmt.Fprintf(&b, `<g class="stage" data-stage="%s" data-count="%d"><text x="0" y="%d">%s</text>`, esc(s.Name), s.Count, y+15, esc(s.Name))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="18" rx="3" fill="#6366F1"/><text x="%d" y="%d">%d</text></g>`, labelW, y+2, max(bw, 1), labelW+max(bw, 1)+6, y+15, s.Count)
	}
	b.WriteString(`</svg>`)
	_, err := io.WriteString(w, b.String())
	return err
}

// Stock writes an offer's claims over time: a step line counting claims
// upward, on a scale of the claims themselves (a stock of 1,000,000 with
// a few claims is not a flat line), the stock left written beside the
// title. Times are shown in now's location (the scenario's timezone, as
// the rest of the page). The stock left is data-left (the claims
// counted for unlimited stock, stock < 0).
func Stock(w io.Writer, title string, stock int, claims []time.Time, now time.Time) error {
	const width, height, padR, padT, padB = 480, 170, 16, 34, 30
	loc := now.Location()
	sort.Slice(claims, func(i, j int) bool { return claims[i].Before(claims[j]) })
	start, end := now, now
	if len(claims) > 0 {
		start = claims[0].Add(-time.Minute)
		if claims[len(claims)-1].After(end) {
			end = claims[len(claims)-1]
		}
	}
	if !end.After(start) {
		start = end.Add(-time.Minute)
	}
	top := max(len(claims), 1)
	padL := 12 + int(float64(len(grouped(top)))*6.8)
	x := func(t time.Time) float64 {
		return float64(padL) + float64(width-padL-padR)*float64(t.Sub(start))/float64(end.Sub(start))
	}
	y := func(n int) float64 { return padT + float64(height-padT-padB)*(1-float64(n)/float64(top)) }
	var pts strings.Builder
	fmt.Fprintf(&pts, "%.1f,%.1f", x(start), y(0))
	for i, t := range claims {
		fmt.Fprintf(&pts, " %.1f,%.1f %.1f,%.1f", x(t), y(i), x(t), y(i+1))
	}
	fmt.Fprintf(&pts, " %.1f,%.1f", x(end), y(len(claims)))
	left, what := len(claims), fmt.Sprintf("%s claimed, unlimited stock", grouped(len(claims)))
	if stock >= 0 {
		left = stock - len(claims)
		what = fmt.Sprintf("%s claimed, %s of %s left", grouped(len(claims)), grouped(left), grouped(stock))
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="stock" data-left="%d" data-claims="%d" width="%d" height="%d" viewBox="0 0 %d %d" font-family="DejaVu Sans, Arial, sans-serif" font-size="11">`, left, len(claims), width, height, width, height)
	fmt.Fprintf(&b, `<title>%s</title><text x="0" y="13" font-weight="bold" font-size="12">%s: claims over time</text><text x="0" y="27" fill="#374151">%s</text>`, esc(title), esc(title), esc(what))
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#9CA3AF"/><line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#9CA3AF"/>`, padL, padT, padL, height-padB, padL, height-padB, width-padR, height-padB)
	fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text><text x="%d" y="%d" text-anchor="end">0</text>`, padL-4, y(top)+4, grouped(top), padL-4, height-padB+4)
	fmt.Fprintf(&b, `<polyline fill="none" stroke="#059669" stroke-width="2" points="%s"/>`, pts.String())
	fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text><text x="%d" y="%d" text-anchor="end">%s</text>`, padL, height-10, start.In(loc).Format("01-02 15:04:05"), width-padR, height-10, end.In(loc).Format("01-02 15:04:05 -07:00"))
	b.WriteString(`</svg>`)
	_, err := io.WriteString(w, b.String())
	return err
}

// grouped writes n with thousands separators (1,000,000).
func grouped(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}
