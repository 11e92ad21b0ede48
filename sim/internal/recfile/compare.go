package recfile

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/match"
)

// Difference is one way a replayed answer differs from the recorded one.
type Difference struct {
	Step  string `json:"step"`
	Label string `json:"label"`
	// Where: "status", "header X", "body /ptr", "bdata /ptr", "request".
	Where string `json:"where"`
	// Want and Got are the recorded and replayed values as JSON text
	// ("" when absent); Compared says how they compared after masking,
	// when masking changed them.
	Want     string `json:"want,omitempty"`
	Got      string `json:"got,omitempty"`
	Compared string `json:"compared,omitempty"`
	Note     string `json:"note,omitempty"`
}

func (d Difference) String() string { return d.format("recorded", "replayed") }

func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}

// origin is the scheme and host of an absolute http(s) URL in a page.
var origin = regexp.MustCompile(`https?://[A-Za-z0-9.\-]+(:[0-9]+)?`)

// PageText is a text answer as compared: credentials masked, and the
// origins of absolute URLs (the target's own host and port in a page's
// links differ from the recording's) made one.
func PageText(s string) string {
	return origin.ReplaceAllString(MaskText(s, nil), "<origin>")
}

func Quote(s string) string {
	if s == "" {
		return ""
	}
	q, _ := MarshalValue(s)
	return string(q)
}

// DiffJSON compares want and got after masking and reports every
// differing leaf with its JSON Pointer, showing the unmasked values.
func DiffJSON(where string, want, got json.RawMessage, masks map[string]MaskKind, add func(where, want, got, compared, note string)) {
	wv, _ := Decode(want)
	gv, _ := Decode(got)
	mw, mg := apply(wv, masks), apply(gv, masks)
	walkDiff("", mw, mg, func(ptr string, a, b any, note string) {
		if a == nil && b == nil { // fields collapsed into the note
			add(where+" "+orRoot(ptr), "", "", "", note)
			return
		}
		ow, _ := match.Resolve(wv, ptr)
		og, _ := match.Resolve(gv, ptr)
		w, g := text(ow, a), text(og, b)
		compared := ""
		if a != nil && b != nil && (!reflect.DeepEqual(a, ow) || !reflect.DeepEqual(b, og)) {
			compared = text(a, a) + " vs " + text(b, b)
		}
		if ptr == "" {
			ptr = "/"
		}
		if strings.Contains(w, `"<url>`) && note == "" {
			// The file holds the URL as older recordings were written: its
			// host dropped and digit runs as 9 (VU-Q9 for VU-Q1); the
			// replayed value is shown as sent.
			note = "the recording holds this URL normalised (host dropped, digit runs as 9)"
		}
		add(where+" "+ptr, w, g, compared, note)
	})
}

// text renders v (or, when v is absent, nothing) as JSON.
func text(v, present any) string {
	if present == nil && v == nil {
		return ""
	}
	b, _ := MarshalValue(v)
	return string(b)
}

// maxListed is how many fields missing or added at one place are listed
// one by one; more are one difference naming them all.
const maxListed = 3

func orRoot(ptr string) string {
	if ptr == "" {
		return "/"
	}
	return ptr
}

func walkDiff(ptr string, a, b any, fn func(ptr string, a, b any, note string)) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			fn(ptr, a, b, "a different type")
			return
		}
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		var missing, added []string
		for _, k := range sorted {
			if _, inB := y[k]; !inB {
				missing = append(missing, k)
			} else if _, inA := x[k]; !inA {
				added = append(added, k)
			}
		}
		collapse := len(missing) > maxListed || len(added) > maxListed
		for _, k := range sorted {
			p := ptr + "/" + escape(k)
			av, inA := x[k]
			bv, inB := y[k]
			switch {
			case !inB && !collapse:
				fn(p, av, nil, "missing from the replayed answer")
			case !inA && !collapse:
				fn(p, nil, bv, "not in the recorded answer")
			case inA && inB:
				walkDiff(p, av, bv, fn)
			}
		}
		if collapse { // one line for many fields (a shared target's richer answer)
			for _, c := range []struct {
				keys []string
				what string
			}{{missing, "missing from the replayed answer"}, {added, "not in the recorded answer"}} {
				if len(c.keys) > 0 {
					fn(ptr, nil, nil, fmt.Sprintf("%d fields %s: %s", len(c.keys), c.what, strings.Join(c.keys, ", ")))
				}
			}
		}
	case []any:
		y, ok := b.([]any)
		if !ok {
			fn(ptr, a, b, "a different type")
			return
		}
		if len(x) != len(y) {
			fn(ptr, a, b, fmt.Sprintf("%d elements recorded, %d replayed", len(x), len(y)))
			return
		}
		for i := range x {
			walkDiff(fmt.Sprintf("%s/%d", ptr, i), x[i], y[i], fn)
		}
	default:
		if !reflect.DeepEqual(a, b) {
			fn(ptr, a, b, "")
		}
	}
}
