package story

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/rewardsim/rewardsim/sim/internal/fault"
)

// Book is which stories are applied to which channel, and each
// channel's clock as it was before a story moved it. It is safe for
// concurrent use; On is read on every public call (the front door's
// X-Rewardsim-Story header).
type Book struct {
	mu      sync.RWMutex
	applied map[string][]string // channel -> story names, in the order applied
	clocks  map[string]ClockBefore
}

// NewBook is a book knowing again the stories whose fault rules were
// restored (a clock or a storm is not restored: it has already happened).
func NewBook(restored []fault.Status) *Book {
	b := &Book{applied: map[string][]string{}, clocks: map[string]ClockBefore{}}
	for _, st := range restored {
		if name, ch, ok := ParseRuleID(st.ID); ok && !slices.Contains(b.applied[ch], name) {
			b.applied[ch] = append(b.applied[ch], name)
		}
	}
	return b
}

// On is the stories applied to channel, joined by ", " ("" for none).
func (b *Book) On(channel string) string {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return strings.Join(b.applied[channel], ", ")
}

// Has reports whether story name is applied to channel.
func (b *Book) Has(channel, name string) bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return slices.Contains(b.applied[channel], name)
}

// Add notes story name applied to channel; moved is how it moved the
// channel's clock (nil: it did not): the first move says whether the
// channel had a clock of its own, and every move adds to By.
func (b *Book) Add(channel, name string, moved *ClockBefore) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !slices.Contains(b.applied[channel], name) {
		b.applied[channel] = append(b.applied[channel], name)
	}
	if moved == nil {
		return
	}
	if cb, ok := b.clocks[channel]; ok {
		cb.By += moved.By
		b.clocks[channel] = cb
		return
	}
	b.clocks[channel] = *moved
}

// Clear forgets channel's stories and returns them, and its clock before
// the first story moved it (nil: none did).
func (b *Book) Clear(channel string) ([]string, *ClockBefore) {
	b.mu.Lock()
	defer b.mu.Unlock()
	names := b.applied[channel]
	delete(b.applied, channel)
	cb, ok := b.clocks[channel]
	delete(b.clocks, channel)
	if !ok {
		return names, nil
	}
	return names, &cb
}

// Disarmed forgets the story whose rule id was disarmed (by `fault rm`,
// a clear of the rules, the channel's deletion) once none of its rules
// is left in armed: a story is applied while it shapes answers, so its
// X-Rewardsim-Story header and its "applied" end with its last rule, and
// it may be applied again.
func (b *Book) Disarmed(id string, armed []fault.Status) {
	name, ch, ok := ParseRuleID(id)
	if !ok {
		return
	}
	for _, st := range armed {
		if n, c, ok := ParseRuleID(st.ID); ok && n == name && c == ch {
			return
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.applied[ch] = slices.DeleteFunc(b.applied[ch], func(x string) bool { return x == name })
	if len(b.applied[ch]) == 0 {
		delete(b.applied, ch)
	}
}

// All is every channel's applied stories.
func (b *Book) All() map[string][]string {
	b.mu.RLock()
	defer b.mu.RUnlock()
	out := make(map[string][]string, len(b.applied))
	for ch, names := range maps.All(b.applied) {
		out[ch] = slices.Clone(names)
	}
	return out
}
