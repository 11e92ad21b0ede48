package sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/internal/api/control"
	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/controlplane"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

// ControlOptions configure the control plane (SIM-2, SIM-3): who may
// call it and how often scenario files are looked at. The webhook pushes
// it schedules are configured by WebhookOptions.
type ControlOptions struct {
	// Token, if set, is required on every control call but /__sim/health.
	Token string
	// AllowedHosts are the host names (beyond IP addresses and localhost)
	// the control API answers to; any other Host header is refused, which
	// stops DNS rebinding (docs/security.md).
	AllowedHosts []string
	// ScenarioPoll is how often (real time) scenario files on disk are
	// checked for changes (hot reload); 0: 1s; negative: never.
	ScenarioPoll time.Duration
}

// maxStateCards bounds the cards a state read lists for one user.
const maxStateCards = 1000

// openControl opens the control plane, which restores the saved clock,
// scenarios, activations, run-time channels and fault rules. It runs
// before anything that reads the time is built.
func (s *Sim) openControl(active *scenario.Scenario) error {
	p, err := controlplane.Open(controlplane.Options{
		Store: s.store, Files: scenarioFiles{s.schemas}, Scenario: active, Watch: s.opts.ScenarioPath,
		Clock: s.opts.Clock, Rand: s.opts.Rand, Log: s.log, SharedBox: s.opts.SharedBox,
		Secrets: s.secrets,
	})
	if err != nil {
		return err
	}
	s.plane, s.clock = p, p.Clock()
	s.opts.Clock = s.clock
	return nil
}

// startLoops starts the webhook delivery and scenario hot-reload loops;
// stopLoops (from Close) ends them and waits.
func (s *Sim) startLoops() {
	ctx, cancel := context.WithCancel(context.Background())
	s.stopLoops = func() {
		cancel()
		s.loops.Wait()
	}
	tick := s.opts.Webhooks.Tick
	if tick <= 0 {
		tick = 250 * time.Millisecond
	}
	s.loops.Go(func() { s.hooks.Run(ctx, tick) })
	poll := s.opts.Control.ScenarioPoll
	if poll == 0 {
		poll = time.Second
	}
	if poll > 0 {
		s.loops.Go(func() { s.plane.Watch(ctx, poll) })
	}
	if s.opts.State.Retention >= 0 {
		s.loops.Go(func() { s.purgeLoop(ctx) })
	}
	if s.opts.Durability == DurabilityProcess {
		s.loops.Go(func() { clock.Every(ctx, SyncEvery, s.syncState) })
	}
}

// syncState flushes the state file to the disk: under DurabilityProcess
// it bounds what a machine crash can take (a process crash takes nothing).
func (s *Sim) syncState() {
	if err := s.store.Sync(); err != nil {
		s.log.Warn("sync of the state file failed", "err", err)
	}
}

// readers are what GET /__sim/state/users/... shows of a user.
func (s *Sim) readers(cardSvc *cards.Service) []control.Reader {
	return []control.Reader{
		{Name: "cards", Read: func(ch, vid string) (any, error) {
			cs, _, err := cardSvc.List(ch, vid, 0, maxStateCards)
			if cs == nil {
				cs = []model.Card{}
			}
			return cs, err
		}},
		{Name: "coupons", Read: func(ch, vid string) (any, error) { return s.store.ChannelUserCoupons(ch, vid) }},
		{Name: "tokens", Read: s.readTokens},
		{Name: "sessions", Read: func(ch, vid string) (any, error) {
			ss, err := s.store.UserSessions(ch, vid)
			if ss == nil {
				ss = []model.Session{}
			}
			return ss, err
		}},
	}
}

// scenarioFiles reads scenario files for the control plane (the
// composition root is the only reader of files).
type scenarioFiles struct{ schemas *schema.Set }

// Parse compiles uploaded YAML; certificateFile may only use builtin:;
// an overlay extends a loaded scenario or an embedded one.
func (f scenarioFiles) Parse(name string, data []byte, base func(string) ([]byte, bool)) (*scenario.Scenario, error) {
	return scenario.Parse(name, data, f.schemas, scenario.Sources{Builtin: certs.FS, Base: func(n string) ([]byte, bool) {
		if b, ok := base(n); ok {
			return b, true
		}
		return EmbeddedScenario(n)
	}})
}

// Load reads a scenario file or folder.
func (f scenarioFiles) Load(path string) (*scenario.Scenario, error) {
	return loadScenario(path, f.schemas)
}

// Stamp summarises the modification times and sizes of a scenario file,
// or of a folder's *.yaml files.
func (scenarioFiles) Stamp(path string) string {
	files := []string{path}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		files, _ = filepath.Glob(filepath.Join(path, "*.y*ml"))
	}
	out := ""
	for _, f := range files {
		if info, err := os.Stat(f); err == nil {
			out += fmt.Sprintf("%s %d %d;", f, info.ModTime().UnixNano(), info.Size())
		}
	}
	return out
}

type tokenView struct {
	Token     string    `json:"token"`
	Kind      string    `json:"kind"`
	IssuedAt  time.Time `json:"issuedAt"`
	ExpiresAt time.Time `json:"expiresAt"`
	Expired   bool      `json:"expired"`
}

func (s *Sim) readTokens(ch, vid string) (any, error) {
	ts, err := s.store.UserTokens(ch, vid)
	if err != nil {
		return nil, err
	}
	now := clock.NowFor(s.clock, ch)
	out := make([]tokenView, 0, len(ts))
	for _, t := range ts {
		out = append(out, tokenView{t.Value, string(t.Kind), t.IssuedAt, t.ExpiresAt, !now.Before(t.ExpiresAt)})
	}
	return out, nil
}
