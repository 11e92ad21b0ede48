package controlplane_test

import (
	"crypto/rand"
	"errors"
	"io/fs"
	"log/slog"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/scenarios"
	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/controlplane"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
	"github.com/rewardsim/rewardsim/sim/internal/state"
)

// failingStore is a real store whose config writes fail while failing is set.
type failingStore struct {
	*state.Store
	failing bool
}

var errDiskFull = errors.New("disk full")

func (f *failingStore) WriteConfig(ws ...state.ConfigWrite) error {
	if f.failing {
		return errDiskFull
	}
	return f.Store.WriteConfig(ws...)
}

// ResetChannel with config writes is a channel's deletion: it fails too.
func (f *failingStore) ResetChannel(channel string, ws ...state.ConfigWrite) error {
	if f.failing && len(ws) > 0 {
		return errDiskFull
	}
	return f.Store.ResetChannel(channel, ws...)
}

type files struct{ set *schema.Set }

func (f files) Parse(name string, data []byte, _ func(string) ([]byte, bool)) (*scenario.Scenario, error) {
	return scenario.Parse(name, data, f.set, scenario.Sources{Builtin: certs.FS})
}
func (files) Load(path string) (*scenario.Scenario, error) { return nil, fs.ErrNotExist }
func (files) Stamp(string) string                          { return "" }

const other = `version: 1
name: other
channels:
  - name: OTHERBANK
    certificateFile: builtin:publisher-dev.crt
`

func open(t *testing.T, st *failingStore) *controlplane.Plane {
	t.Helper()
	set, err := schema.Compile(schemas.FS)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := fs.ReadFile(scenarios.FS, scenarios.Default)
	def, err := scenario.Parse(scenarios.Default, data, set, scenario.Sources{Builtin: certs.FS})
	if err != nil {
		t.Fatal(err)
	}
	p, err := controlplane.Open(controlplane.Options{
		Store: st, Files: files{set}, Scenario: def, Rand: rand.Reader, Log: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// clause: SIM-3
// One failure rule for every change: when its save fails, the change is
// not in force, and a restart (which reads the disk) agrees with memory.
// When saves work again, the same changes land in memory and survive a
// restart.
func TestPlane_SIM3_failedSaveLeavesMemoryAndDiskInStep(t *testing.T) {
	dir := t.TempDir()
	db, err := state.Open(dir, state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := &failingStore{Store: db}
	p := open(t, st)
	pem, _ := fs.ReadFile(certs.FS, certs.PublisherCert)
	frozenAt := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

	changes := []struct {
		name string
		do   func() error
	}{
		{"load and activate a scenario", func() error {
			_, err := p.LoadScenario(controlplane.Source{Name: "other.yaml", YAML: []byte(other)}, true, "")
			return err
		}},
		{"register a channel", func() error {
			_, err := p.RegisterChannel(controlplane.ChannelSpec{Name: "CI1", Certificate: string(pem)})
			return err
		}},
		{"add a fault rule", func() error {
			_, err := p.AddFault(fault.Rule{ID: "f1", Endpoint: "*", Action: fault.Action{Kind: fault.HTTPStatus, Status: 503}})
			return err
		}},
		{"freeze the clock", func() error { return p.SetClock(clock.ModeFrozen, &frozenAt) }},
	}
	inForce := func(p *controlplane.Plane) map[string]bool {
		_, _, ci := p.Scenarios().ByChannelName("CI1")
		return map[string]bool{
			"load and activate a scenario": p.Scenarios().Active().Name == "other",
			"register a channel":           ci,
			"add a fault rule":             len(p.Faults().List()) == 1,
			"freeze the clock":             p.ClockView().Mode == clock.ModeFrozen && p.Clock().Now().Equal(frozenAt),
		}
	}

	st.failing = true
	for _, c := range changes {
		if err := c.do(); !errors.Is(err, errDiskFull) {
			t.Errorf("%s with a failing save: err = %v, want the save's", c.name, err)
		}
	}
	for name, on := range inForce(p) {
		if on {
			t.Errorf("%s: in force although its save failed", name)
		}
	}
	if _, ok := p.Scenarios().ByName("other"); ok {
		t.Error("scenario other is loaded although its save failed")
	}

	st.failing = false
	for _, c := range changes {
		if err := c.do(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
	for name, on := range inForce(p) {
		if !on {
			t.Errorf("%s: not in force after its save", name)
		}
	}

	// A restart restores from disk exactly what memory had.
	restarted := open(t, st)
	for name, on := range inForce(restarted) {
		if !on {
			t.Errorf("%s: lost on restart", name)
		}
	}

	// Removing fails the same way: nothing leaves memory that stays on disk.
	st.failing = true
	if err := p.RemoveFault("f1"); !errors.Is(err, errDiskFull) || len(p.Faults().List()) != 1 {
		t.Errorf("remove with a failing save: err = %v, rules %v", err, p.Faults().List())
	}
	if err := p.UnregisterChannel("CI1"); !errors.Is(err, errDiskFull) {
		t.Errorf("unregister with a failing save: err = %v", err)
	}
	if _, _, ok := p.Scenarios().ByChannelName("CI1"); !ok {
		t.Error("channel CI1 left memory although its delete failed")
	}
}

// Refusals say why, so the HTTP layer can answer 400, 404 or 409.
func TestPlane_refusals(t *testing.T) {
	db, err := state.Open(t.TempDir(), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := open(t, &failingStore{Store: db})
	pem, _ := fs.ReadFile(certs.FS, certs.PublisherCert)
	cases := []struct {
		name string
		err  error
		want refusal.Kind
	}{
		{"unknown scenario", p.ActivateScenario("nope", ""), refusal.NotFound},
		{"unknown channel", p.ActivateScenario("default", "NOPE"), refusal.NotFound},
		{"bad certificate", func() error {
			_, err := p.RegisterChannel(controlplane.ChannelSpec{Name: "X", Certificate: "junk"})
			return err
		}(), refusal.Invalid},
		{"clashing channel", func() error {
			_, err := p.RegisterChannel(controlplane.ChannelSpec{Name: "DEMOBANK", Certificate: string(pem)})
			return err
		}(), refusal.Conflict},
		{"unknown endpoint", func() error { _, err := p.AddFault(fault.Rule{Endpoint: "nope"}); return err }(), refusal.Invalid},
		{"unknown fault", p.RemoveFault("nope"), refusal.NotFound},
		{"bad clock mode", p.SetClock("warp", nil), refusal.Invalid},
		{"clock out of range", p.AdvanceClock(250 * 365 * 24 * time.Hour), refusal.Invalid},
	}
	for _, c := range cases {
		if !refusal.Is(c.err, c.want) {
			t.Errorf("%s: err = %v, want a refusal of reason %d", c.name, c.err, c.want)
		}
	}
}
