package scenario_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/scenarios"
	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

// clause: SIM-1
// An overlay merges onto its base: channels, campaigns, pools and offers
// by id (the overlay's item whole), mappings deep, faults appended; its
// name is its own; problems are reported at its own lines; a cycle ends.
func TestOverlay_SIM1_mergesOntoItsBase(t *testing.T) {
	set, err := schema.Compile(schemas.FS)
	if err != nil {
		t.Fatal(err)
	}
	def, _ := scenarios.FS.ReadFile(scenarios.Default)
	files := map[string]string{"default": string(def), "loop-a": "extends: loop-b\n", "loop-b": "extends: loop-a\n"}
	src := scenario.Sources{Builtin: certs.FS, Base: func(n string) ([]byte, bool) {
		s, ok := files[n]
		return []byte(s), ok
	}}
	sc, err := scenario.Parse("ci/over.yaml", []byte(`extends: default
switches:
  coupons: {duplicate: reject}
tokens: {userTTL: 1m}
offers:
  DEMOBANK:
    - {id: OFFER-VIP, title: VIP for all, coins: 1, stock: 5}
    - {id: OFFER-NEW, title: New, coins: 5, stock: 5}
faults:
  - {id: extra, endpoint: GetAuthToken, virtualId: X, action: {kind: internal-error}}
`), set, src)
	if err != nil {
		t.Fatal(err)
	}
	var offers []string
	for _, o := range sc.OfferList("DEMOBANK") {
		offers = append(offers, o.ID+":"+o.Title)
	}
	var faults []string
	for _, f := range sc.FaultRules {
		faults = append(faults, f.ID)
	}
	for what, ok := range map[string]bool{
		"its own name":           sc.Name == "over",
		"switches deep-merged":   sc.Switches.Coupons.Duplicate == "reject" && sc.Switches.Coupons.CrossOffer == "reject" && sc.Switches.Cards.ListMaxLimit == 50,
		"tokens merged key-wise": sc.Tokens.UserTTL.D().Minutes() == 1 && sc.Tokens.ReferenceTTL.D().Hours() == 1,
		"offers merged by id":    strings.Join(offers, ",") == "OFFER-DEMO:Demo coupon, open to everyone,OFFER-VIP:VIP for all,OFFER-RETIRED:Retired coupon,OFFER-NEW:New",
		"faults appended":        strings.Join(faults, ",") == "coupon-internal-error,coupon-timeout,coupon-drop,extra",
		"campaigns kept":         len(sc.CampaignsOf("DEMOBANK")) == 1,
		"channels kept":          sc.HasChannel("DEMOBANK"),
		"YAML is the merged one": strings.Contains(string(sc.YAML), "OFFER-NEW") && strings.Contains(string(sc.YAML), "CAMP-DEMO") && !strings.Contains(string(sc.YAML), "extends"),
	} {
		if !ok {
			t.Errorf("%s: %+v", what, sc.File)
		}
	}

	for _, tc := range []struct{ yaml, want string }{
		{"extends: default\nname: bad\nfaults:\n  - {id: x, endpoint: Nope, action: {kind: internal-error}}\n", "ci/over.yaml:4: /faults/0/endpoint"},
		{"extends: default\nname: bad\nswitches:\n  failureHttpStatus: 302\n", "ci/over.yaml:4: /switches/failureHttpStatus"},
		{"extends: nowhere\n", `ci/over.yaml:1: /extends: extends: no scenario named "nowhere"`},
		{"extends: loop-a\n", "a cycle?"},
	} {
		_, err := scenario.Parse("ci/over.yaml", []byte(tc.yaml), set, src)
		var es scenario.Errors
		if !errors.As(err, &es) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.yaml, err, tc.want)
		}
	}
}

// clause: SIM-1
// A list key left null (every item under `faults:` commented out) reads
// as none, in a file and in an overlay (which then keeps its base's list).
func TestParse_SIM1_aNullListReadsAsNone(t *testing.T) {
	set, err := schema.Compile(schemas.FS)
	if err != nil {
		t.Fatal(err)
	}
	def, _ := scenarios.FS.ReadFile(scenarios.Default)
	src := scenario.Sources{Builtin: certs.FS, Base: func(n string) ([]byte, bool) { return def, n == "default" }}
	commented := "faults:\n  # - {id: off, endpoint: GetAuthToken, action: {kind: internal-error}}\n"
	whole := strings.Replace(string(def), "faults:\n", "old-faults-gone:\n", 1)
	whole = whole[:strings.Index(whole, "old-faults-gone:")] + commented + "campaigns:" + strings.SplitN(whole, "\ncampaigns:", 2)[1]
	sc, err := scenario.Parse("plain.yaml", []byte(whole), set, src)
	if err != nil || len(sc.FaultRules) != 0 {
		t.Fatalf("a file with faults: null: %v (%d rules)", err, len(sc.FaultRules))
	}
	over, err := scenario.Parse("over.yaml", []byte("extends: default\n"+commented), set, src)
	base, _ := scenario.Parse("default.yaml", def, set, src)
	if err != nil || len(over.FaultRules) != len(base.FaultRules) || len(base.FaultRules) == 0 {
		t.Fatalf("an overlay with faults: null: %v (%d rules, base %d)", err, len(over.FaultRules), len(base.FaultRules))
	}
}
