package scenario

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Bounds on what a scenario asks the simulator to make at run time: the
// widths, counts and repetitions of its templates and the settings that
// size an answer or hold a worker. They are checked when the file is
// loaded (upload, path, hot reload, validate, a restored record), so
// nothing a scenario says is expanded inside a store transaction without
// them; docs/scenarios.md lists them.
const (
	// MaxPatternWidth bounds N in {seq:N} and {rand:N}.
	MaxPatternWidth = 64
	// MaxTemplateBytes bounds a template's own length (couponPattern,
	// codes.pattern, url.query, url.target).
	MaxTemplateBytes = 512
	// MaxPlaceholders bounds the placeholders of one template: each may
	// carry a request's value, so repetition multiplies it.
	MaxPlaceholders = 8
	// MaxListLimit bounds switches.cards.listMaxLimit (cards per page).
	MaxListLimit = 1000
	// MaxWebhookDeadline bounds switches.webhook.deadline: how long one
	// push may hold a delivery worker.
	MaxWebhookDeadline = time.Minute
	// MaxWeight bounds a pool entry's weight, so a pool's total weight
	// (summed at every reveal) cannot overflow.
	MaxWeight = 1_000_000
)

// checkBounds reports every bound the file breaks, at the field's line.
func checkBounds(f File, fail func(p, msg string)) {
	for i, p := range f.Pools {
		for j, e := range p.Entries {
			checkTemplate(fmt.Sprintf("/pools/%d/entries/%d/couponPattern", i, j), e.CouponPattern, fail)
			if e.Weight > MaxWeight {
				fail(fmt.Sprintf("/pools/%d/entries/%d/weight", i, j), fmt.Sprintf("%d is over the bound of %d (MaxWeight)", e.Weight, MaxWeight))
			}
		}
	}
	for _, ch := range slices.Sorted(maps.Keys(f.Offers)) {
		for i, o := range f.Offers[ch] {
			p := "/offers/" + ch + "/" + strconv.Itoa(i)
			checkTemplate(p+"/codes/pattern", o.Codes.Pattern, fail)
			checkTemplate(p+"/url/query", o.URL.Query, fail)
			checkTemplate(p+"/url/target", o.URL.Target, fail)
		}
	}
	if n := f.Switches.Cards.ListMaxLimit; n > MaxListLimit {
		fail("/switches/cards/listMaxLimit", fmt.Sprintf("%d is over the bound of %d (MaxListLimit)", n, MaxListLimit))
	}
	if n := f.Switches.Cards.ListDefaultLimit; n > MaxListLimit {
		fail("/switches/cards/listDefaultLimit", fmt.Sprintf("%d is over the bound of %d (MaxListLimit)", n, MaxListLimit))
	}
	if d := f.Switches.Webhook.Deadline.D(); d > MaxWebhookDeadline {
		fail("/switches/webhook/deadline", fmt.Sprintf("%v is over the bound of %v (MaxWebhookDeadline)", d, MaxWebhookDeadline))
	}
}

// checkTemplate checks one template's length, placeholder count and widths.
func checkTemplate(p, t string, fail func(p, msg string)) {
	if len(t) > MaxTemplateBytes {
		fail(p, fmt.Sprintf("is %d bytes, over the bound of %d (MaxTemplateBytes)", len(t), MaxTemplateBytes))
		return
	}
	n := 0
	for rest := t; ; {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			break
		}
		k := strings.IndexByte(rest[i:], '}')
		if k < 0 {
			break
		}
		n++
		name, arg, hasArg := strings.Cut(rest[i+1:i+k], ":")
		if hasArg && (name == "seq" || name == "rand") {
			if w, err := strconv.Atoi(arg); err != nil || w > MaxPatternWidth {
				fail(p, fmt.Sprintf("{%s:%s} is wider than the bound of %d (MaxPatternWidth)", name, arg, MaxPatternWidth))
			}
		}
		rest = rest[i+k+1:]
	}
	if n > MaxPlaceholders {
		fail(p, fmt.Sprintf("has %d placeholders, over the bound of %d (MaxPlaceholders)", n, MaxPlaceholders))
	}
}

// PatternWidth is N of {seq:N} or {rand:N} as the expander must read it:
// at most MaxPatternWidth, whatever a record that skipped the load-time
// check says, so an expansion inside a store transaction stays bounded.
func PatternWidth(arg string) int {
	n, _ := strconv.Atoi(arg)
	return min(max(n, 0), MaxPatternWidth)
}
