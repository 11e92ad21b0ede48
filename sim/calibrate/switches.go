package calibrate

import (
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

// Switch is one behaviour switch: a point the contract leaves open, as a
// scenario names it (docs/scenarios.md, "Behaviour switches").
type Switch struct {
	// Name is the switch's path in a scenario file (switches.cards.amountRequired).
	Name    string
	Default string
	// Values are the documented values; nil for a free value (a
	// duration, an integer).
	Values []string
	// Kind is how the overlay writes the value: "bool", "int" or "string".
	Kind string
	// NotProbed says why no probe reads it; empty when one does.
	NotProbed string
	get       func(*scenario.Scenario) string
}

// Same reports whether two readings of the switch answer alike to a
// publisher: switches.cards.dateandtime "now" and "accept" show no
// difference in any answer (the card keeps the date it was sent, and no
// answer shows it), so they are one reading here.
func (s Switch) Same(a, b string) bool {
	if a == b {
		return true
	}
	switch s.Kind {
	case "duration":
		da, ea := time.ParseDuration(a)
		db, eb := time.ParseDuration(b)
		return ea == nil && eb == nil && da == db
	}
	if s.Name == "switches.cards.dateandtime" {
		taken := func(v string) bool { return v == scenario.DateTimeNow || v == scenario.DateTimeAccept }
		return taken(a) && taken(b)
	}
	return false
}

// Value is the switch's value in a compiled scenario (its defaults applied).
func (s Switch) Value(sc *scenario.Scenario) string { return s.get(sc) }

// notProbed says, of each switch no probe reads, why.
var notProbed = map[string]string{
	"sessions.ttl":                  "a session's lifetime shows only once it has run out: calibrate does not wait",
	"switches.cards.bankAmountUnit": "the unit shows only against a campaign's amount tiers, which the publisher side cannot list",
	"switches.webhook.retry":        "pushes go to the webhook URL the vendor holds for the channel, not to calibrate",
	"switches.webhook.interval":     "pushes go to the webhook URL the vendor holds for the channel, not to calibrate",
	"switches.webhook.maxAttempts":  "pushes go to the webhook URL the vendor holds for the channel, not to calibrate",
	"switches.sdk.missCallback":     "the reveal callbacks run in the hosted microsite's page, in a browser",
}

// Switches is every behaviour switch, in the order of the docs' table:
// the scenario package's one table (scenario.SwitchTable), less the
// webhook deadline, which is the simulator's own patience, not a reading
// of the vendor's.
var Switches = func() []Switch {
	var out []Switch
	for _, d := range scenario.SwitchTable {
		if d.Name == "switches.webhook.deadline" {
			continue
		}
		out = append(out, Switch{Name: d.Name, Default: d.Default, Values: d.Values, Kind: d.Kind, NotProbed: notProbed[d.Name], get: d.Value})
	}
	return out
}()

// SwitchByName finds a switch of Switches.
func SwitchByName(name string) (Switch, bool) {
	for _, s := range Switches {
		if s.Name == name {
			return s, true
		}
	}
	return Switch{}, false
}
