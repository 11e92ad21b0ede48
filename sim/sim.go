// Package sim is the simulator's composition root: New reads keys and
// scenarios, opens the store and wires the hosts; Handler exposes each
// host for in-process use; Serve runs them on listeners. Everything below
// it takes arguments and reads no files, flags or environment.
package sim

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/scenarios"
	"github.com/rewardsim/rewardsim/sim/internal/api/control"
	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/controlplane"
	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/frontdoor"
	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/metrics"
	"github.com/rewardsim/rewardsim/sim/internal/onewrite"
	"github.com/rewardsim/rewardsim/sim/internal/park"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
	"github.com/rewardsim/rewardsim/sim/internal/secrets"
	"github.com/rewardsim/rewardsim/sim/internal/state"
	"github.com/rewardsim/rewardsim/sim/internal/webhook"
)

// Host names one face of the simulator.
type Host string

const (
	// All is the three public hosts on one handler (their paths do not collide).
	All Host = "all"
	// The public hosts are the contract table's: its operations are routed
	// by their Host.
	Rewards  = Host(contract.Rewards)
	Bank     = Host(contract.Bank)
	Hotdeals = Host(contract.Hotdeals)
	// Control is the control API under /__sim/.
	Control Host = "control"
)

// Clock tells the simulated time; nil in Options means the wall clock.
type Clock interface {
	Now() time.Time
}

// Options configure a simulator.
type Options struct {
	// DataDir holds the bbolt file; created if missing. Required.
	DataDir string
	// ScenarioPath is a scenario file or a folder of them; empty means the
	// embedded scenarios/default.yaml.
	ScenarioPath string
	// ServiceKeyPEM and ServiceCertPEM sign answers; nil means the embedded
	// test-only service key of certs/.
	ServiceKeyPEM, ServiceCertPEM []byte
	// PublicURL is the base of absolute URLs handed out; empty means the
	// scheme and host each request came in on.
	PublicURL string
	Clock     Clock
	Logger    *slog.Logger
	// Rand supplies token and session bytes; nil means crypto/rand.
	Rand io.Reader
	// Control configures the control plane (see control.go).
	Control ControlOptions
	// Webhooks configure the webhook pushes (see webhooks.go).
	Webhooks WebhookOptions
	// Server bounds connections, request times and the shutdown wait
	// of Serve.
	Server ServerOptions
	// Journal bounds the exchange journal (SIM-4): at most MaxEntries
	// entries (0: 100000; negative: no count bound) and none older than
	// MaxAge in simulated time (0: no age bound).
	Journal JournalOptions
	// State bounds the per-request records of the state store (tokens,
	// sessions): see StateOptions.
	State StateOptions
	// Durability is what an answered write survives: DurabilityProcess
	// (the default when empty) or DurabilityDisk.
	Durability Durability
	// DebugPprof serves Go's profiler under /__sim/debug/pprof/ on the
	// control listener (behind the control token): how `make load`
	// profiles a real process.
	DebugPprof bool
	// SharedBox: several teams share the box (docs/security.md): copies
	// made like a channel get fresh credentials, and the credential-less
	// routes act only on what the channel's credentialed calls issued.
	SharedBox bool
	// Version is the build's version, reported by /__sim/health; empty
	// means "(devel)".
	Version string
	// CORSOrigins are the origins whose web pages may call the public
	// hosts directly (CORS); empty, the default, allows none. "*" allows
	// any.
	CORSOrigins []string
}

// Durability says what a write survives once it is answered
// (docs/performance.md, "Durability").
type Durability string

const (
	// DurabilityProcess writes every change to the state file before its
	// answer, without an fsync per commit: it survives the process dying
	// in any way (kill -9, OOM kill, panic), since the kernel holds what
	// was written. The file is synced every SyncEvery and on a clean
	// shutdown, so a machine crash loses at most the last SyncEvery.
	DurabilityProcess Durability = "process"
	// DurabilityDisk fsyncs every group commit before its answers: a
	// write survives a machine crash too, at the disk's fsync cost.
	DurabilityDisk Durability = "disk"
)

// SyncEvery is how often (real time) the state file is synced under
// DurabilityProcess.
const SyncEvery = time.Second

// ParseDurability reads a durability name; empty means DurabilityProcess.
func ParseDurability(s string) (Durability, error) {
	switch d := Durability(s); d {
	case "", DurabilityProcess:
		return DurabilityProcess, nil
	case DurabilityDisk:
		return d, nil
	}
	return "", fmt.Errorf("durability %q is not process or disk", s)
}

// JournalOptions bound the journal of exchanges.
type JournalOptions struct {
	MaxEntries int
	// MaxBytes bounds the stored journal in bytes, oldest dropped first
	// (0: 64 MiB; negative: no byte bound).
	MaxBytes int64
	MaxAge   time.Duration
	// Disabled records nothing.
	Disabled bool
}

// StateOptions bound the per-request records of the state store.
type StateOptions struct {
	// Retention is how long, in simulated time, a token or session is kept
	// after it expired: within it the token answers as expired, after it
	// the background purge deletes it and it answers as unknown
	// (docs/security.md). 0: 24h; negative: never swept.
	Retention time.Duration
	// PurgeTick is how often (real time) the purge runs; 0: 1s.
	PurgeTick time.Duration
	// GroupWait is how long a busy group commit of a few writes waits for
	// more to share it (a lone write never waits); 0: 200µs; negative:
	// no wait.
	GroupWait time.Duration
	// TxHook, for tests only, runs inside every group-committed write
	// transaction (a test makes it panic to show a panic there is one
	// request's 500, not the process's end); nil in the product.
	TxHook func()
}

// Sim is a running simulator's state and handlers.
type Sim struct {
	opts Options
	// lots are the public listeners' parked calls while Serve runs (nil
	// before): for rewardsim_calls_held.
	lots       atomic.Pointer[[]*park.Lot]
	log        *slog.Logger
	store      *state.Store
	schemas    *schema.Set
	serviceKey *rsa.PrivateKey
	certPEM    []byte
	handlers   map[Host]http.Handler
	// door is the public hosts' way in (routes), which also notes whom a
	// call to no endpoint was for (mount).
	door *frontdoor.Door
	// plane owns the run-time configuration (scenarios in force, channels,
	// fault rules, clock); hooks delivers webhook pushes.
	plane *controlplane.Plane
	// clock is the plane's clock, handed to every service that reads a
	// channel's time (clock.PerChannel: no service asks which kind it holds).
	clock   clock.PerChannel
	hooks   *webhook.Scheduler
	journal *journal.Journal
	// secrets is what the journal masks by value: the control plane and
	// the coupon host tell it the secKeys they know.
	secrets *secrets.Memory
	// loops are the background loops (webhooks, hot reload); stopLoops
	// ends them and waits.
	loops     sync.WaitGroup
	stopLoops func()
	// metrics and live are fed by the journal (observe.go).
	metrics *metrics.Metrics
	live    *control.Live
}

// New builds a simulator. It loads every schema and the scenario first,
// so a bad file fails here and not on the first request (schemas compile
// on first use; a test compiles them all).
func New(opts Options) (*Sim, error) {
	if opts.DataDir == "" {
		return nil, errors.New("sim: Options.DataDir is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Rand == nil {
		opts.Rand = rand.Reader
	}
	var err error
	if opts.Durability, err = ParseDurability(string(opts.Durability)); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	s := &Sim{opts: opts, log: opts.Logger}
	if err := s.open(); err != nil {
		s.release()
		return nil, err
	}
	s.observe()
	rs, err := s.routes()
	if err != nil {
		s.release()
		return nil, err
	}
	s.handlers = s.mount(rs)
	s.startLoops()
	return s, nil
}

// open loads keys, schemas and the scenario, then opens the store, the
// control plane (which restores the clock), the journal and the webhook
// scheduler, in that order. On error the caller releases whatever was
// opened.
func (s *Sim) open() error {
	var err error
	if s.schemas, err = compiledSchemas(); err != nil {
		return fmt.Errorf("schemas: %w", err)
	}
	for _, op := range contractOps {
		for _, n := range []string{op.Request, op.RequestBDATA, op.Response, op.ResponseBDATA} {
			if n != "" && !s.schemas.Has(n) {
				return fmt.Errorf("operation %s names schema %q, which is not in schemas/", op.Name, n)
			}
		}
	}
	active, jf, err := s.openFiles()
	if err != nil {
		return err
	}
	s.secrets = secrets.New()
	if err := s.openControl(active); err != nil {
		_ = jf.Close()
		return err
	}
	// The journal stamps entries with the simulated clock resolved above
	// (the persisted sim clock when Options gave none).
	s.journal, err = jf.Start(journal.Options{
		MaxEntries: s.opts.Journal.MaxEntries, MaxBytes: s.opts.Journal.MaxBytes, MaxAge: s.opts.Journal.MaxAge, Disabled: s.opts.Journal.Disabled,
		Clock: s.clock, Logger: s.log, Secrets: s.secrets,
	})
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	s.hooks = s.newWebhooks()
	return nil
}

// openFiles opens the state file (s.store) and the journal's file while
// the service key and the scenario are parsed: a new file waits on the
// disk (bbolt syncs its first pages, 1 to 13 ms each on the build VM),
// the parsing on the CPU, and the three overlap (issue 56). On error the
// journal's file is closed; the caller releases the store.
func (s *Sim) openFiles() (*scenario.Scenario, *journal.File, error) {
	var active *scenario.Scenario
	parsed := make(chan error, 1)
	go func() {
		err := s.loadServiceKey()
		if err == nil {
			active, err = loadScenario(s.opts.ScenarioPath, s.schemas)
		}
		parsed <- err
	}()
	var jf *journal.File
	journalOpened := make(chan error, 1)
	go func() {
		var err error
		jf, err = journal.OpenFile(s.opts.DataDir)
		journalOpened <- err
	}()
	// In process mode nothing on the request path fsyncs, growing the
	// file included: the periodic Sync covers growth as it covers commits.
	processOnly := s.opts.Durability == DurabilityProcess
	var err error
	s.store, err = state.Open(s.opts.DataDir, state.Options{NoSync: processOnly, NoGrowSync: processOnly,
		GroupWait: s.opts.State.GroupWait, TxHook: s.opts.State.TxHook, Log: s.log})
	perr, jerr := <-parsed, <-journalOpened
	if jerr != nil {
		jerr = fmt.Errorf("journal: %w", jerr)
	}
	if err := cmp.Or(perr, err, jerr); err != nil {
		if jerr == nil {
			_ = jf.Close()
		}
		return nil, nil, err
	}
	return active, jf, nil
}

// release stops and closes whatever is open, in reverse order; it is safe
// on a partly opened Sim.
func (s *Sim) release() error {
	if s.stopLoops != nil {
		s.stopLoops()
	}
	if s.journal != nil {
		_ = s.journal.Close()
	}
	if s.store != nil {
		return s.store.Close()
	}
	return nil
}

func (s *Sim) loadServiceKey() error {
	keyPEM, certPEM := s.opts.ServiceKeyPEM, s.opts.ServiceCertPEM
	if keyPEM == nil {
		keyPEM, _ = fs.ReadFile(certs.FS, certs.ServiceKey)
		certPEM, _ = fs.ReadFile(certs.FS, certs.ServiceCert)
	}
	key, err := envelope.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		return fmt.Errorf("service key: %w", err)
	}
	pub, err := envelope.ParsePublicKeyPEM(certPEM)
	if err != nil {
		return fmt.Errorf("service certificate: %w", err)
	}
	if !pub.Equal(&key.PublicKey) {
		return errors.New("service certificate does not match the service key")
	}
	s.serviceKey, s.certPEM = key, certPEM
	return nil
}

// compiledSchemas is the process's one schema set, shared with simtest.
var compiledSchemas = schema.Embedded

// ValidateScenario checks a scenario file or folder as New would load it.
// Problems are reported with file, line, path and reason.
func ValidateScenario(path string) error {
	set, err := compiledSchemas()
	if err != nil {
		return err
	}
	_, err = loadScenario(path, set)
	return err
}

// loadScenario parses a scenario file, or the folder's default.yaml (else
// its first *.yaml by name), or the embedded default when path is empty.
func loadScenario(path string, set *schema.Set) (*scenario.Scenario, error) {
	src := scenario.Sources{Builtin: certs.FS, Base: EmbeddedScenario}
	if path == "" {
		data, err := fs.ReadFile(scenarios.FS, scenarios.Default)
		if err != nil {
			return nil, err
		}
		src.Embedded = true // validated at build time, not at each start-up
		return scenario.Parse("scenarios/"+scenarios.Default, data, set, src)
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	file := path
	if info.IsDir() {
		names, _ := filepath.Glob(filepath.Join(path, "*.y*ml"))
		sort.Strings(names)
		if len(names) == 0 {
			return nil, fmt.Errorf("scenario folder %s has no *.yaml file", path)
		}
		file = names[0]
		for _, n := range names {
			if strings.TrimSuffix(filepath.Base(n), filepath.Ext(n)) == "default" {
				file = n
			}
		}
	}
	data, err := readBounded(file, scenario.MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	src.Files = os.DirFS(filepath.Dir(file))
	src.Base = func(name string) ([]byte, bool) { // a file of the same folder, else an embedded one
		for _, ext := range []string{".yaml", ".yml"} {
			sib := filepath.Join(filepath.Dir(file), filepath.Base(name)+ext)
			if sib == file {
				continue
			}
			if b, err := readBounded(sib, scenario.MaxFileBytes); err == nil && len(b) <= scenario.MaxFileBytes {
				return b, true
			}
		}
		return EmbeddedScenario(name)
	}
	return scenario.Parse(file, data, set, src)
}

// readBounded reads at most limit+1 bytes of a file: enough for the
// parser to refuse an over-long file by name, without reading all of it
// (or forever, from a device).
func readBounded(file string, limit int) ([]byte, error) {
	// Opening a FIFO or a device blocks or never ends: refuse anything
	// but a regular file before opening it (issue 23).
	if info, err := os.Stat(file); err != nil {
		return nil, err
	} else if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", file, info.Mode().Type())
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, int64(limit)+1))
}

// Handler returns the handler of one host.
func (s *Sim) Handler(h Host) http.Handler { return s.handlers[h] }

// ServiceCertPEM is the certificate that verifies the simulator's answers.
func (s *Sim) ServiceCertPEM() []byte { return s.certPEM }

// Close stops the control plane, flushes the journal and releases the
// store. Call it after every server has stopped.
func (s *Sim) Close() error { return s.release() }

// Listen says where each host listens. All serves the three public hosts
// together; when any of Rewards, Bank or Hotdeals is set (split mode) each
// public host gets its own listener and All is ignored.
type Listen struct {
	All, Rewards, Bank, Hotdeals, Control string
}

// Split reports whether the public hosts listen apart.
func (l Listen) Split() bool { return l.Rewards != "" || l.Bank != "" || l.Hotdeals != "" }

// Serve binds every listener, calls ready with the bound addresses, and
// serves until ctx ends; then it shuts down gracefully, waiting up to
// Options.Server.ShutdownTimeout for requests in flight: those it cuts
// are logged and make Serve return ErrRequestsCut. It never exits the
// process.
func (s *Sim) Serve(ctx context.Context, l Listen, ready func(map[Host]string)) error {
	want := map[Host]string{Control: l.Control}
	if l.Split() {
		want[Rewards], want[Bank], want[Hotdeals] = l.Rewards, l.Bank, l.Hotdeals
	} else {
		want[All] = l.All
	}
	o := s.opts.Server.withDefaults()
	live := &inFlight{}
	servers := map[Host]*http.Server{}
	bound := map[Host]string{}
	lns := map[Host]net.Listener{}
	var lots []*park.Lot
	for h, addr := range want {
		if addr == "" {
			continue
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			for _, o := range lns {
				o.Close()
			}
			for _, lot := range lots {
				lot.Stop()
			}
			return fmt.Errorf("%s listener: %w", h, err)
		}
		bound[h] = ln.Addr().String()
		lns[h] = onewrite.Listener(ln)
		var lot *park.Lot
		if h != Control {
			// Calls held for a latency draw wait on a timer, off net/http
			// (issue 53 item 5).
			lot = park.NewLot(lns[h])
			lns[h], lots = lot, append(lots, lot)
		}
		servers[h] = s.newServer(h, o, live, lot)
		// Open dashboards end their event streams, so shutdown need not wait for them.
		servers[h].RegisterOnShutdown(s.EndStreams)
	}
	s.lots.Store(&lots)
	errc := make(chan error, len(servers))
	for h, srv := range servers {
		go func() {
			if err := srv.Serve(lns[h]); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("%s: %w", h, err)
			}
		}()
	}
	s.logStart(bound)
	if ready != nil {
		ready(bound)
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	err = errors.Join(err, s.shutdown(servers, lots, o, live))
	s.log.Info("rewardsim stopped", "err", err)
	return err
}

// EmbeddedScenario is the YAML of a scenario shipped in the binary, by
// name ("default").
func EmbeddedScenario(name string) ([]byte, bool) {
	if strings.ContainsAny(name, "/\\") {
		return nil, false
	}
	b, err := fs.ReadFile(scenarios.FS, name+".yaml")
	return b, err == nil
}
