// Package simtest starts the simulator in-process for Go tests (SIM-5),
// shaped like net/http/httptest: New starts it, the URLs and a signing
// publisher client are ready to use, Close stops it and waits.
//
// Every answer that passes through Server.HTTP (and so Server.Client) is
// validated against the JSON Schema of its operation: a test that calls
// the simulator through the harness fails if the simulator breaks the
// contract it enforces.
//
// Everything here is public API for publishers' own tests: it names no
// type of rewardsim's internal packages and registers no flags.
package simtest

import (
	"crypto/rsa"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// Start is where the fake clock of every harness starts:
// 2026-01-15 10:00:00 +05:30.
var Start = time.Date(2026, 1, 15, 10, 0, 0, 0, time.FixedZone("UTC+05:30", 5*3600+1800))

// Clock is the harness's fake clock: it stands still until Advance or Set
// moves it. The control API's clock calls move it too. It is safe for
// concurrent use.
type Clock struct{ fake *clock.Fake }

// NewClock returns a fake clock standing at Start, to share across
// restarts with WithClock.
func NewClock() *Clock { return &Clock{clock.NewFake(Start)} }

// Now returns the simulated time.
func (c *Clock) Now() time.Time { return c.fake.Now() }

// Advance moves the clock by d (backwards if d is negative).
func (c *Clock) Advance(d time.Duration) { c.fake.Advance(d) }

// Set puts the clock at t.
func (c *Clock) Set(t time.Time) { c.fake.Set(t) }

// Server is a simulator running in-process on loopback.
type Server struct {
	Sim *sim.Sim
	// Base URLs of the hosts; equal unless the harness runs split.
	RewardsURL, BankURL, HotdealsURL, ControlURL string
	Clock                                        *Clock
	DataDir                                      string
	// HTTP validates every answer against its schema.
	HTTP *http.Client
	// Client is the publisher DEMOBANK of the default scenario, signing
	// with the test-only key of certs/ and verifying answers.
	Client *publisher.Client
	// PublisherKey is DEMOBANK's private key.
	PublisherKey *rsa.PrivateKey

	servers      []*httptest.Server
	controlToken string // for the harness's own control calls (channel.go)
	closeOnce    sync.Once
	cleanup      []string // temporary folders NewServer made, removed by Close
}

type config struct {
	scenarioPath string
	scenarioYAML string
	split        bool
	dataDir      string
	clock        *Clock
	control      sim.ControlOptions
	webhooks     sim.WebhookOptions
	journal      sim.JournalOptions
	state        sim.StateOptions
	logger       *slog.Logger
}

// Option changes how New starts the simulator.
type Option func(*config)

// WithScenarioFile runs a scenario file or folder instead of the embedded default.
func WithScenarioFile(path string) Option { return func(c *config) { c.scenarioPath = path } }

// WithScenarioYAML runs a scenario given as YAML text.
func WithScenarioYAML(yaml string) Option { return func(c *config) { c.scenarioYAML = yaml } }

// WithSplitHosts gives each public host its own listener (HOST-1).
func WithSplitHosts() Option { return func(c *config) { c.split = true } }

// WithDataDir reuses a data folder, for restart tests.
func WithDataDir(dir string) Option { return func(c *config) { c.dataDir = dir } }

// WithClock shares a fake clock, for restart tests.
func WithClock(clk *Clock) Option { return func(c *config) { c.clock = clk } }

// WithControl sets the control-plane options (token, allowed hosts,
// hot-reload poll).
func WithControl(o sim.ControlOptions) Option { return func(c *config) { c.control = o } }

// WithWebhooks sets the webhook options (receiver deadline, wait, tick,
// client, invalidator). A Wait of 0 here is 10s, not the server's 500ms.
func WithWebhooks(o sim.WebhookOptions) Option { return func(c *config) { c.webhooks = o } }

// WithJournal bounds (or disables) the journal of exchanges.
func WithJournal(o sim.JournalOptions) Option { return func(c *config) { c.journal = o } }

// WithLogger sends the simulator's log (one line per request at info)
// to l; by default it is discarded.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithState sets how long expired tokens and sessions are kept, and how
// often they are swept.
func WithState(o sim.StateOptions) Option { return func(c *config) { c.state = o } }

// New starts a simulator and stops it when the test ends. An answer
// outside its operation's schema fails the test (through t.Errorf) and is
// still handed to the caller. The data folder, unless given, is a
// t.TempDir, so it outlives Close for a restart within the test.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	tempDir := func() (string, error) { return t.TempDir(), nil }
	s, err := start(opts, tempDir, func(err error) { t.Errorf("%v", err) })
	if err != nil {
		t.Fatalf("simtest: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// NewServer starts a simulator outside a test (an Example, a TestMain, a
// program). The caller must Close it; Close removes the temporary folders
// NewServer made (pass WithDataDir to keep the state). An answer outside
// its operation's schema makes the call through Server.HTTP fail with an
// error that says why.
func NewServer(opts ...Option) (*Server, error) {
	var made []string
	tempDir := func() (string, error) {
		dir, err := os.MkdirTemp("", "simtest-")
		if err == nil {
			made = append(made, dir)
		}
		return dir, err
	}
	s, err := start(opts, tempDir, nil)
	if err != nil {
		for _, dir := range made {
			_ = os.RemoveAll(dir)
		}
		return nil, err
	}
	s.cleanup = made
	return s, nil
}

// start builds and serves a simulator. report, when set, receives schema
// violations (and the answer still reaches the caller); nil turns them
// into round-trip errors.
func start(opts []Option, tempDir func() (string, error), report func(error)) (*Server, error) {
	cfg := config{}
	for _, o := range opts {
		o(&cfg)
	}
	var err error
	if cfg.dataDir == "" {
		if cfg.dataDir, err = tempDir(); err != nil {
			return nil, err
		}
	}
	if cfg.clock == nil {
		cfg.clock = NewClock()
	}
	if cfg.scenarioYAML != "" {
		dir, err := tempDir()
		if err != nil {
			return nil, err
		}
		cfg.scenarioPath = filepath.Join(dir, "scenario.yaml")
		if err := os.WriteFile(cfg.scenarioPath, []byte(cfg.scenarioYAML), 0o600); err != nil {
			return nil, err
		}
	}
	schemas, err := schema.Embedded()
	if err != nil {
		return nil, err
	}
	if cfg.webhooks.Wait == 0 {
		// A test's receivers are local: wait for their attempts, so an
		// answer shows them (the server's default is shorter).
		cfg.webhooks.Wait = 10 * time.Second
	}
	s, err := sim.New(sim.Options{DataDir: cfg.dataDir, ScenarioPath: cfg.scenarioPath, Clock: cfg.clock, Control: cfg.control, Webhooks: cfg.webhooks, Journal: cfg.journal, State: cfg.state, Logger: cfg.logger})
	if err != nil {
		return nil, err
	}
	srv := &Server{Sim: s, Clock: cfg.clock, DataDir: cfg.dataDir, controlToken: cfg.control.Token}
	serve := func(h sim.Host) string {
		ts := httptest.NewServer(s.Handler(h))
		srv.servers = append(srv.servers, ts)
		return ts.URL
	}
	if cfg.split {
		srv.RewardsURL, srv.BankURL, srv.HotdealsURL = serve(sim.Rewards), serve(sim.Bank), serve(sim.Hotdeals)
	} else {
		u := serve(sim.All)
		srv.RewardsURL, srv.BankURL, srv.HotdealsURL = u, u, u
	}
	srv.ControlURL = serve(sim.Control)
	srv.HTTP = &http.Client{Transport: &validating{report: report, next: srv.servers[0].Client().Transport, schemas: schemas}}

	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	if srv.PublisherKey, err = publisher.ParsePrivateKeyPEM(keyPEM); err == nil {
		var servicePub *rsa.PublicKey
		if servicePub, err = publisher.ParsePublicKeyPEM(s.ServiceCertPEM()); err == nil {
			srv.Client = &publisher.Client{
				HTTP:       srv.HTTP,
				RewardsURL: srv.RewardsURL, BankURL: srv.BankURL, HotdealsURL: srv.HotdealsURL,
				ChannelID: "DEMOBANK", Channel: "DEMOBANK",
				Key: srv.PublisherKey, ServiceKey: servicePub,
				AppKey: "DEMOAPPKEY", SecKey: "DEMOSECKEY",
			}
		}
	}
	if err != nil {
		srv.Close()
		return nil, errors.Join(errors.New("the test-only keys of certs/"), err)
	}
	return srv, nil
}

// Close stops the servers, waiting for requests in flight, then the store.
// It may be called more than once, also concurrently; every call returns
// when the harness is down.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.Sim.EndStreams() // an open dashboard would hold the control server open
		for _, ts := range s.servers {
			ts.Close()
		}
		_ = s.Sim.Close()
		for _, dir := range s.cleanup {
			_ = os.RemoveAll(dir)
		}
	})
}
