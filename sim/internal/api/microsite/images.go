package microsite

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"text/template"

	"github.com/labstack/echo/v4"
)

// ImagePath serves generated SVG imagery: /assets/img/<theme>-<kind>.svg,
// where kind is cover, icon, banner or coupon (default cover) and theme
// picks colours and a motif (coffee, movie, grocery, better-luck,
// camp-demo, scratch-card; any other name gets colours from its hash and
// its words as the label). Scenarios point their imagery here, so pages
// render with no network beyond the simulator.
const ImagePath = AssetsPath + "/img/:file"

type theme struct {
	Label, From, To, Motif string
}

var themes = map[string]theme{
	"coffee":       {"Demo Coffee", "#6F4E37", "#C08457", "cup"},
	"movie":        {"Demo Cinemas", "#1E3A8A", "#7C3AED", "ticket"},
	"grocery":      {"Demo Grocer", "#15803D", "#84CC16", "basket"},
	"better-luck":  {"Better luck next time", "#6B7280", "#D1D5DB", "star"},
	"camp-demo":    {"DEMOBANK Rewards", "#4338CA", "#DB2777", "gift"},
	"scratch-card": {"Scratch card", "#4338CA", "#0EA5E9", "gift"},
}

var kinds = map[string][2]int{"cover": {600, 300}, "icon": {96, 96}, "banner": {1200, 400}, "coupon": {600, 200}}

var imageName = regexp.MustCompile(`^([a-z0-9]+(?:-[a-z0-9]+)*)\.svg$`)

// motifs are drawn in a 100x100 box.
var motifs = map[string]string{
	"cup":    `<path d="M18 30h52v30a24 24 0 0 1-24 24h-4a24 24 0 0 1-24-24z" fill="#fff"/><path d="M70 38h6a12 12 0 0 1 0 24h-6" stroke="#fff" stroke-width="7" fill="none"/><path d="M32 8c-6 8 6 10 0 18M46 8c-6 8 6 10 0 18" stroke="#fff" stroke-width="4" fill="none" opacity=".7"/>`,
	"ticket": `<path d="M8 28h84v14a8 8 0 0 0 0 16v14H8V58a8 8 0 0 0 0-16z" fill="#fff"/><path d="M62 30v40" stroke-dasharray="5 5" stroke="#1E3A8A" stroke-width="3"/><circle cx="34" cy="50" r="10" fill="#7C3AED"/>`,
	"basket": `<path d="M10 40h80l-10 44H20z" fill="#fff"/><path d="M28 40l14-26M72 40L58 14" stroke="#fff" stroke-width="6"/><path d="M35 52v22M50 52v22M65 52v22" stroke="#15803D" stroke-width="5"/>`,
	"star":   `<path d="M50 8l12 26 28 3-21 19 6 28-25-14-25 14 6-28-21-19 28-3z" fill="#fff"/>`,
	"gift":   `<rect x="14" y="38" width="72" height="50" rx="4" fill="#fff"/><rect x="8" y="26" width="84" height="16" rx="3" fill="#fff"/><path d="M50 26v62" stroke="#DB2777" stroke-width="9"/><path d="M50 26c-10-22-34-14-22 0M50 26c10-22 34-14 22 0" stroke="#fff" stroke-width="6" fill="none"/>`,
	"dot":    `<circle cx="50" cy="50" r="34" fill="#fff" opacity=".9"/>`,
}

// Parsed on first use, not at start-up (init time is start-up time).
var svgTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("svg").Parse(`<svg xmlns="http://www.w3.org/2000/svg" width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="{{.From}}"/><stop offset="1" stop-color="{{.To}}"/></linearGradient></defs>
{{if eq .Kind "icon"}}<circle cx="48" cy="48" r="48" fill="url(#g)"/><g transform="translate(20 20) scale(.56)">{{.Motif}}</g>
{{else}}<rect width="{{.W}}" height="{{.H}}" rx="{{if eq .Kind "coupon"}}18{{else}}0{{end}}" fill="url(#g)"/>
<circle cx="{{.W}}" cy="0" r="{{.H}}" fill="#fff" opacity=".08"/><circle cx="0" cy="{{.H}}" r="{{.R}}" fill="#000" opacity=".08"/>
{{if eq .Kind "coupon"}}<rect x="10" y="10" width="{{.W10}}" height="{{.H10}}" rx="12" fill="none" stroke="#fff" stroke-width="3" stroke-dasharray="10 8" opacity=".8"/>{{end}}
<g transform="translate({{.MX}} {{.MY}}) scale({{.MS}})">{{.Motif}}</g>
<text x="{{.TX}}" y="{{.TY}}" font-family="DejaVu Sans, Arial, sans-serif" font-size="{{.FS}}" font-weight="700" fill="#fff">{{.Label}}</text>
<text x="{{.TX}}" y="{{.SY}}" font-family="DejaVu Sans, Arial, sans-serif" font-size="{{.SS}}" fill="#fff" opacity=".85">{{.Sub}}</text>
{{end}}</svg>`))
})

// image renders one generated SVG.
func (h *handlers) image(c echo.Context) error {
	m := imageName.FindStringSubmatch(c.Param("file"))
	if m == nil {
		return echo.NewHTTPError(http.StatusNotFound)
	}
	name, kind := m[1], "cover"
	// Only the last "-kind" is the kind, so "x-icon-banner" is theme
	// "x-icon", kind banner, whatever the map's order.
	if i := strings.LastIndex(name, "-"); i > 0 {
		if _, ok := kinds[name[i+1:]]; ok {
			name, kind = name[:i], name[i+1:]
		}
	}
	th, ok := themes[name]
	if !ok {
		hash := fnv.New32a()
		hash.Write([]byte(name))
		hue := hash.Sum32() % 360
		th = theme{strings.ReplaceAll(name, "-", " "), fmt.Sprintf("hsl(%d,60%%,38%%)", hue), fmt.Sprintf("hsl(%d,70%%,58%%)", (hue+40)%360), "dot"}
	}
	wh := kinds[kind]
	w, hgt := wh[0], wh[1]
	sub := map[string]string{"cover": "Rewards by rewardsim", "banner": "Scratch and win exciting rewards", "coupon": "Coupon"}[kind]
	d := map[string]any{
		"W": w, "H": hgt, "R": hgt / 2, "W10": w - 20, "H10": hgt - 20, "Kind": kind,
		"From": th.From, "To": th.To, "Motif": motifs[th.Motif], "Label": th.Label, "Sub": sub,
		"MS": float64(hgt) * 0.6 / 100, "MX": w - hgt*7/10 - hgt/10, "MY": hgt / 5,
		"TX": hgt / 6, "TY": hgt/2 + hgt/20, "FS": labelSize(th.Label, w, hgt), "SY": hgt/2 + hgt/20 + hgt/7, "SS": hgt / 14,
	}
	var b strings.Builder
	if err := svgTmpl().Execute(&b, d); err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=3600")
	return c.Blob(http.StatusOK, "image/svg+xml", []byte(b.String()))
}

// labelSize fits the label between the left margin and the motif
// (DejaVu Sans Bold averages about 0.62 em per character).
func labelSize(label string, w, h int) int {
	room := float64(w - h*8/10 - h/6 - h/10)
	return max(8, min(h/7, int(room/(0.62*float64(len(label))))))
}
