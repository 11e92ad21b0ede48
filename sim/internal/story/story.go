// Package story holds the named failure stories a developer applies to
// one channel in one step (stock-out, uat-down, token-expires-now, ...):
// each an embedded overlay of fault rules, a move of the channel's own
// clock, or a burst of webhook pushes, and a Book of which channel has
// which applied, so that clearing puts the channel back as it was. The
// control API applies them through the control plane; this package only
// describes them and keeps the book.
package story

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

//go:embed stories/*.yaml
var files embed.FS

// Story is one named failure, as its embedded file says.
type Story struct {
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description" json:"description"`
	// Faults are armed for the channel (each rule's channel is set).
	Faults []fault.Rule `yaml:"faults,omitempty" json:"faults,omitempty"`
	// Advance moves the channel's own clock forward by this much.
	Advance model.Duration `yaml:"advance,omitempty" json:"advance,omitempty"`
	// Storm schedules pushes of one body (one referenceId) at once.
	Storm *Storm `yaml:"storm,omitempty" json:"storm,omitempty"`
}

// Storm is a burst of repeated coupon-status pushes.
type Storm struct {
	Repeat int    `yaml:"repeat" json:"repeat"`
	Reason string `yaml:"reason" json:"reason"`
}

// All lists the stories by name; a file that does not load is a build
// defect, caught by the package's test.
var All = sync.OnceValue(func() []Story {
	out, err := load(files)
	if err != nil {
		panic(err)
	}
	return out
})

func load(fsys fs.FS) ([]Story, error) {
	names, err := fs.Glob(fsys, "stories/*.yaml")
	if err != nil {
		return nil, err
	}
	var out []Story
	for _, n := range names {
		raw, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		var s Story
		dec := yaml.NewDecoder(strings.NewReader(string(raw)))
		dec.KnownFields(true)
		if err := dec.Decode(&s); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		for _, r := range s.Faults {
			if err := fault.Check(r); err != nil {
				return nil, fmt.Errorf("%s: %w", n, err)
			}
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Story) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// ByName finds a story.
func ByName(name string) (Story, bool) {
	i := slices.IndexFunc(All(), func(s Story) bool { return s.Name == name })
	if i < 0 {
		return Story{}, false
	}
	return All()[i], true
}

// Names lists every story's name.
func Names() []string {
	var out []string
	for _, s := range All() {
		out = append(out, s.Name)
	}
	return out
}

// RulePrefix starts the id of every fault rule a story arms:
// story:<name>:<channel>:<n>. The ids say which story armed a rule, so a
// story armed before a restart is known again from the rules restored.
const RulePrefix = "story:"

// RuleID is the id of the nth rule story name arms on channel.
func RuleID(name, channel string, n int) string {
	return fmt.Sprintf("%s%s:%s:%d", RulePrefix, name, channel, n)
}

// ParseRuleID is the story and channel of a rule id RuleID made.
func ParseRuleID(id string) (name, channel string, ok bool) {
	rest, ok := strings.CutPrefix(id, RulePrefix)
	if !ok {
		return "", "", false
	}
	parts := strings.Split(rest, ":")
	if len(parts) != 3 {
		return "", "", false
	}
	return parts[0], parts[1], true
}

// ClockBefore is how to put back a channel's clock that stories moved:
// drop its own clock when it had none before, else move it back By.
type ClockBefore struct {
	Own bool          // false: the channel followed the global clock
	By  time.Duration // how far the stories moved it, in all
}
