package sim

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/internal/api/control"
	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/state"
	"github.com/rewardsim/rewardsim/sim/internal/webhook"
)

// ControlOptions configure the control plane (SIM-2, SIM-3, WH-*).
type ControlOptions struct {
	// Token, if set, is required on every control call but /__sim/health.
	Token string
	// WebhookDeadline is how long a webhook receiver has to answer; 0: 5s.
	WebhookDeadline time.Duration
	// WebhookTick is how often (real time) due pushes are looked for; 0: 250ms.
	WebhookTick time.Duration
	// ScenarioPoll is how often (real time) scenario files on disk are
	// checked for changes (hot reload); 0: 1s; negative: never.
	ScenarioPoll time.Duration
	// Invalidator marks an offer's delivered coupons invalidated when a
	// COUPON_INVALIDATED push fires (WH-4); nil: none (the coupons area wires it).
	Invalidator Invalidator
	// WebhookClient sends pushes; nil: a plain http.Client.
	WebhookClient *http.Client
}

// MaxWebhookDeadline bounds ControlOptions.WebhookDeadline and every
// push's deadline (deliveries run one at a time).
const MaxWebhookDeadline = webhook.MaxDeadline

// Invalidator marks an offer's delivered coupons invalidated from at.
type Invalidator interface {
	InvalidateOffer(channel, offerID string, at time.Time, reason string) error
}

type controlPlane struct {
	faults  *fault.Set
	hooks   *webhook.Scheduler
	readers []control.Reader
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	mu      sync.Mutex
	watched map[string]string // path -> stamp of its files
}

// maxStateCards bounds the cards a state read lists for one user.
const maxStateCards = 1000

// resolveClock gives the simulator its clock: the one in Options (tests),
// else the persisted sim clock, which the control API can set and move.
// It runs before anything that reads the time is built.
func (s *Sim) resolveClock() error {
	if s.opts.Clock != nil {
		return nil
	}
	var st clock.State
	if err := s.store.GetConfig(state.KindClock, "sim", &st); err != nil && !errors.Is(err, model.ErrNotFound) {
		return err
	}
	c := clock.NewSim(st, nil)
	c.OnChange = func(st clock.State) {
		if err := s.store.PutConfig(state.KindClock, "sim", st); err != nil {
			s.log.Error("persisting the clock", "err", err)
		}
	}
	s.opts.Clock = c
	return nil
}

// startControl restores the control plane's durable configuration (clock,
// loaded scenarios and their activation, run-time channels, fault rules)
// and starts the webhook and hot-reload loops. Records that no longer
// load are logged and skipped: a restart never fails on them.
func (s *Sim) startControl() error {
	o := s.opts.Control
	if o.Invalidator == nil {
		o.Invalidator = couponInvalidator{s}
	}
	cp := &controlPlane{faults: &fault.Set{}, watched: map[string]string{}}
	s.ctl = cp
	if s.opts.ScenarioPath != "" {
		cp.watch(s.opts.ScenarioPath)
	}
	// Run-time channels come back before the scenarios: a channel may have
	// been registered first and then named by an uploaded scenario of its
	// own (which the clash check of Register would refuse the other way
	// round). Those that name a scenario wait until it is loaded.
	register := func(spec scenario.ChannelSpec) error {
		reg, err := spec.Compile()
		if err == nil {
			err = s.scenarios.Register(reg)
		}
		return err
	}
	var named []scenario.ChannelSpec
	restore(s, state.KindChannel, func(spec scenario.ChannelSpec) error {
		if spec.Scenario != "" {
			named = append(named, spec)
			return nil
		}
		return register(spec)
	})
	restore(s, state.KindScenario, func(rec scenario.Stored) error {
		var sc *scenario.Scenario
		var err error
		if rec.Path != "" {
			sc, err = s.loadScenarioFile(rec.Path)
		} else {
			sc, err = s.parseScenario(rec.Name+".yaml", []byte(rec.YAML))
		}
		if err == nil {
			s.scenarios.Load(sc)
		}
		return err
	})
	restore(s, state.KindActivation, func(a control.Activation) error {
		return s.scenarios.ActivateName(a.Scenario, a.Channel)
	})
	for _, spec := range named {
		if err := register(spec); err != nil {
			s.log.Warn("skipping a stored control record", "kind", state.KindChannel, "channel", spec.Name, "err", err)
		}
	}
	var rules []fault.Status
	restore(s, state.KindFault, func(st fault.Status) error {
		rules = append(rules, st)
		return nil
	})
	slices.SortStableFunc(rules, func(a, b fault.Status) int { return cmp.Compare(a.Seq, b.Seq) })
	for _, st := range rules {
		cp.faults.Restore(st)
	}
	cp.faults.OnFire = func(st fault.Status) {
		// Counters survive a restart: a spent one-shot rule stays spent.
		// Only a newer count replaces the stored one, and only while the
		// rule exists, so concurrent fires and deletes stay consistent.
		_, err := s.store.ReplaceConfig(state.KindFault, st.ID, st, func(old []byte) bool {
			var prev fault.Status
			return json.Unmarshal(old, &prev) == nil && prev.Seen < st.Seen
		})
		if err != nil {
			s.log.Error("persisting fault counters", "rule", st.ID, "err", err)
		}
	}

	cp.hooks = webhook.New(webhook.Options{
		Store: s.store, Clock: s.opts.Clock, Invalidator: o.Invalidator, Client: o.WebhookClient,
		Rand: s.opts.Rand, Deadline: o.WebhookDeadline, Log: s.log, OnAttempt: s.journalWebhook,
		Channel: func(name string) (webhook.Channel, bool) {
			c, _, ok := s.scenarios.ByChannelName(name)
			sc := s.scenarios.ActiveFor(name)
			w := sc.Switches.Webhook
			return webhook.Channel{
				Name: c.Name, WebhookURL: c.WebhookURL, Location: sc.Location, Deadline: w.Deadline.D(),
				Policy: &webhook.Policy{Kind: w.Retry, Interval: w.Interval, MaxAttempts: w.MaxAttempts},
			}, ok
		},
	})
	cardReader := &cards.Service{Store: s.store, Clock: s.opts.Clock}
	cp.readers = []control.Reader{
		{Name: "cards", Read: func(ch, vid string) (any, error) {
			cs, _, err := cardReader.List(ch, vid, 0, maxStateCards)
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

	ctx, cancel := context.WithCancel(context.Background())
	cp.cancel = cancel
	tick := o.WebhookTick
	if tick <= 0 {
		tick = 250 * time.Millisecond
	}
	cp.wg.Go(func() { cp.hooks.Run(ctx, tick) })
	poll := o.ScenarioPoll
	if poll == 0 {
		poll = time.Second
	}
	if poll > 0 {
		cp.wg.Go(func() { s.pollScenarios(ctx, poll) })
	}
	return nil
}

func (s *Sim) stopControl() {
	if s.ctl != nil && s.ctl.cancel != nil {
		s.ctl.cancel()
		s.ctl.wg.Wait()
	}
}

// restore applies every stored record of kind.
func restore[T any](s *Sim, kind string, apply func(T) error) {
	raws, err := s.store.ConfigList(kind)
	if err != nil {
		s.log.Error("restoring control records", "kind", kind, "err", err)
		return
	}
	for _, raw := range raws {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			s.log.Warn("skipping a stored control record", "kind", kind, "err", err)
			continue
		}
		if err := apply(v); err != nil {
			s.log.Warn("skipping a stored control record", "kind", kind, "record", string(raw), "err", err)
		}
	}
}

func (s *Sim) controlDeps() control.Deps {
	return control.Deps{
		ServiceCertPEM:   s.certPEM,
		Clock:            s.opts.Clock,
		Scenario:         func() string { return s.scenarios.Active().Name },
		Token:            s.opts.Control.Token,
		Schemas:          s.schemas,
		Store:            s.store,
		Scenarios:        s.scenarios,
		ParseScenario:    s.parseScenario,
		LoadScenarioFile: s.loadScenarioFile,
		Faults:           s.ctl.faults,
		Webhooks:         s.ctl.hooks,
		Readers:          s.ctl.readers,
		Rand:             s.opts.Rand,
		Journal:          s.journal,
		Version:          cmp.Or(s.opts.Version, "(devel)"),
	}
}

// parseScenario compiles uploaded YAML; certificateFile may only use builtin:.
func (s *Sim) parseScenario(name string, data []byte) (*scenario.Scenario, error) {
	return scenario.Parse(name, data, s.schemas, scenario.Sources{Builtin: certs.FS})
}

// loadScenarioFile reads a scenario file or folder and watches it.
func (s *Sim) loadScenarioFile(path string) (*scenario.Scenario, error) {
	sc, err := loadScenario(path, s.schemas)
	if err == nil {
		s.ctl.watch(path)
	}
	return sc, err
}

func (cp *controlPlane) watch(path string) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if _, ok := cp.watched[path]; !ok {
		cp.watched[path] = stamp(path)
	}
}

// stamp summarises the modification times and sizes of a scenario file,
// or of a folder's *.yaml files.
func stamp(path string) string {
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

// pollScenarios reloads a watched scenario whose files changed (hot
// reload). Polling the modification time (stdlib only) rather than
// fsnotify: a scenario folder is a handful of files, a one-second poll is
// cheap, and it also works on network and container-mounted folders where
// inotify events do not arrive. A file that no longer loads is logged and
// the previous version stays in force.
func (s *Sim) pollScenarios(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.ctl.mu.Lock()
		var changed []string
		for p, old := range s.ctl.watched {
			if now := stamp(p); now != old {
				s.ctl.watched[p] = now
				changed = append(changed, p)
			}
		}
		s.ctl.mu.Unlock()
		for _, p := range changed {
			sc, err := loadScenario(p, s.schemas)
			if err != nil {
				s.log.Error("scenario hot reload refused; the previous version stays", "path", p, "err", err)
				continue
			}
			s.scenarios.Load(sc)
			s.log.Info("scenario reloaded", "path", p, "name", sc.Name)
		}
	}
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
	now := s.opts.Clock.Now()
	out := make([]tokenView, 0, len(ts))
	for _, t := range ts {
		out = append(out, tokenView{t.Value, string(t.Kind), t.IssuedAt, t.ExpiresAt, !now.Before(t.ExpiresAt)})
	}
	return out, nil
}

// journalWebhook records a webhook attempt in the journal (SIM-4), where
// the conformance report finds slow and non-OK receivers (WH-2).
func (s *Sim) journalWebhook(p webhook.Push, a webhook.Attempt) {
	body, _ := json.Marshal(p.Event)
	s.journal.RecordWebhook(journal.WebhookAttempt{
		At: a.At, URL: a.URL, Channel: p.Channel, RequestBody: body,
		Status: a.Status, ResponseBody: []byte(a.Body),
		Latency: time.Duration(a.LatencyMs * float64(time.Millisecond)), Err: a.Error,
	})
}
