package sim_test

import (
	"testing"
)

// clause: SIM-1 (campaigns and pools are checked with file, line, path and reasonOf)
func TestScenario_cardsProblemsLocated(t *testing.T) {
	base := cardScenario("")
	cases := []scenarioEdit{
		{"unknown pool", "pool: MAIN}\n  - {id: C-CAP", "pool: NOPE}\n  - {id: C-CAP", `/campaigns/0/pool: no pool has id "NOPE"`},
		{"unknown tier pool", "pool: SMALL}, {minAmount: 1000, pool: BIG}]}\n  - {id: C-MULTI", "pool: SMALL}, {minAmount: 1000, pool: HUGE}]}\n  - {id: C-MULTI", `/campaigns/6/tiers/1/pool: no pool has id "HUGE"`},
		{"unknown channel", "{id: C-UPI, channel: OTHERBANK", "{id: C-UPI, channel: NOBANK", `/campaigns/12/channel: no channel is named "NOBANK"`},
		{"duplicate campaign", "{id: C-CAP, channel: DEMOBANK", "{id: C-UPI, channel: DEMOBANK", `/campaigns/1/id: campaign id "C-UPI" is used twice`},
		{"bad window", `activeFrom: "2026-02-01T00:00:00+05:30"`, `activeFrom: "1 Feb 2026"`, "/campaigns/3/activeFrom: is not an RFC 3339 time"},
		{"no pool", "{id: C-EXPIRE, channel: DEMOBANK, triggers: [EXPIRE], pool: MAIN, ", "{id: C-EXPIRE, channel: DEMOBANK, triggers: [EXPIRE], ", "/campaigns/10: needs a pool or tiers"},
		{"unknown targeting key", "{key: state, in: [KA]}", "{key: planet, in: [KA]}", "/campaigns/4/targeting/0/key"},
		{"pattern without placeholder", `couponPattern: "H-{seq:4}"`, `couponPattern: "H-FIXED"`, "/pools/0/entries/0/couponPattern: has no {seq}"},
		{"codes and pattern", `couponPattern: "FIVE-{seq}"`, `couponPattern: "FIVE-{seq}", couponCodes: [A]`, "/pools/3/entries/0"},
		{"unknown switch value", "cards: {}", "cards: {secondReveal: again}", "/switches/cards/secondReveal"},
		{"default over max", "cards: {}", "cards: {listDefaultLimit: 60}", "/switches/cards/listDefaultLimit: is larger than listMaxLimit"},
	}
	checkScenarioEdits(t, base, cases)
}
