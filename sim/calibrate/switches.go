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
	// Unobservable says why no call of a publisher's shows it; empty
	// when a probe reads it.
	Unobservable string
	get          func(*scenario.Scenario) string
}

// Same reports whether two values are one reading of the switch (a
// duration however it is written).
func (s Switch) Same(a, b string) bool {
	if a == b {
		return true
	}
	if s.Kind == "duration" {
		da, ea := time.ParseDuration(a)
		db, eb := time.ParseDuration(b)
		return ea == nil && eb == nil && da == db
	}
	return false
}

// Value is the switch's value in a compiled scenario (its defaults applied).
func (s Switch) Value(sc *scenario.Scenario) string { return s.get(sc) }

// Duration renders a duration the way a scenario file would (1h30m, 45m).
func Duration(d time.Duration) string { return scenario.FormatDuration(d) }

// noPushes is why the webhook switches are not observable: a push is
// the vendor's to send, and a publisher's calls make none.
const noPushes = "the vendor sends a coupon-status push when it invalidates an offer, to the webhook URL it holds for the channel; " +
	"no call of a publisher's makes one, so calibrate can neither receive nor time one"

// noLoad is why the capacity-limit switches are not observable: a
// refusal for capacity shows only under more load than the service takes.
const noLoad = "a refusal for capacity shows only under more calls than the real service takes, and calibrate sends a few probes, never a load"

// unobservable says, of each switch no call of a publisher's shows, why.
var unobservable = map[string]string{
	"switches.cards.bankAmountUnit": "the unit shows only against a campaign's amount tiers, which the publisher side cannot list",
	"switches.webhook.retry":        noPushes,
	"switches.webhook.interval":     noPushes,
	"switches.webhook.maxAttempts":  noPushes,
	"switches.webhook.deadline":     noPushes,
	"switches.limits.status":        noLoad,
	"switches.limits.retryAfter":    noLoad,
	"switches.sdk.missCallback":     "the reveal callbacks run in the hosted microsite's page, in a browser, and only for a card that wins nothing, which no call can ask for",
}

// Switches is every behaviour switch, in the order of the docs' table:
// the scenario package's one table (scenario.SwitchTable).
var Switches = func() []Switch {
	out := make([]Switch, 0, len(scenario.SwitchTable))
	for _, d := range scenario.SwitchTable {
		out = append(out, Switch{Name: d.Name, Default: d.Default, Values: d.Values, Kind: d.Kind, Unobservable: unobservable[d.Name], get: d.Value})
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
