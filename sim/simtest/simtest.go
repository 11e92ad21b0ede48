// Package simtest starts the simulator in-process for Go tests (SIM-5),
// shaped like net/http/httptest: New starts it, the URLs and a signing
// publisher client are ready to use, Close stops it and waits.
//
// Every answer that passes through Server.HTTP is validated against the
// JSON Schema of its operation: a test that calls the simulator through
// the harness fails if the simulator breaks the contract it enforces.
package simtest

import (
	"crypto/rsa"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// Start is where the fake clock of every harness starts:
// 2026-01-15 10:00:00 +05:30.
var Start = time.Date(2026, 1, 15, 10, 0, 0, 0, time.FixedZone("UTC+05:30", 5*3600+1800))

// Clock is the harness's fake clock: Advance and Set move simulated time.
type Clock = clock.Fake

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

	servers   []*httptest.Server
	closeOnce sync.Once
}

type config struct {
	scenarioPath string
	scenarioYAML string
	split        bool
	dataDir      string
	clock        *Clock
	control      sim.ControlOptions
	journal      sim.JournalOptions
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

// WithControl sets the control-plane options (token, webhook deadline,
// invalidator, hot-reload poll).
func WithControl(o sim.ControlOptions) Option { return func(c *config) { c.control = o } }

// WithJournal bounds (or disables) the journal of exchanges.
func WithJournal(o sim.JournalOptions) Option { return func(c *config) { c.journal = o } }

// New starts a simulator and stops it when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	cfg := config{}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.dataDir == "" {
		cfg.dataDir = t.TempDir()
	}
	if cfg.clock == nil {
		cfg.clock = clock.NewFake(Start)
	}
	if cfg.scenarioYAML != "" {
		cfg.scenarioPath = filepath.Join(t.TempDir(), "scenario.yaml")
		if err := os.WriteFile(cfg.scenarioPath, []byte(cfg.scenarioYAML), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s, err := sim.New(sim.Options{DataDir: cfg.dataDir, ScenarioPath: cfg.scenarioPath, Clock: cfg.clock, Control: cfg.control, Journal: cfg.journal})
	if err != nil {
		t.Fatalf("simtest: %v", err)
	}
	srv := &Server{Sim: s, Clock: cfg.clock, DataDir: cfg.dataDir}
	start := func(h sim.Host) string {
		ts := httptest.NewServer(s.Handler(h))
		srv.servers = append(srv.servers, ts)
		return ts.URL
	}
	if cfg.split {
		srv.RewardsURL, srv.BankURL, srv.HotdealsURL = start(sim.Rewards), start(sim.Bank), start(sim.Hotdeals)
	} else {
		u := start(sim.All)
		srv.RewardsURL, srv.BankURL, srv.HotdealsURL = u, u, u
	}
	srv.ControlURL = start(sim.Control)
	srv.HTTP = &http.Client{Transport: &validating{t: t, next: srv.servers[0].Client().Transport, schemas: mustSchemas(t)}}

	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	srv.PublisherKey, err = publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	servicePub, err := publisher.ParsePublicKeyPEM(s.ServiceCertPEM())
	if err != nil {
		t.Fatal(err)
	}
	srv.Client = &publisher.Client{
		HTTP:       srv.HTTP,
		RewardsURL: srv.RewardsURL, BankURL: srv.BankURL, HotdealsURL: srv.HotdealsURL,
		ChannelID: "DEMOBANK", Channel: "DEMOBANK",
		Key: srv.PublisherKey, ServiceKey: servicePub,
		AppKey: "DEMOAPPKEY", SecKey: "DEMOSECKEY",
	}
	t.Cleanup(srv.Close)
	return srv
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
	})
}

var compiled *schema.Set

func mustSchemas(t testing.TB) *schema.Set {
	if compiled == nil {
		set, err := schema.Compile(schemas.FS)
		if err != nil {
			t.Fatal(err)
		}
		compiled = set
	}
	return compiled
}

// NewClock returns a fake clock standing at Start, to share across
// restarts with WithClock.
func NewClock() *Clock { return clock.NewFake(Start) }
