package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim"
)

func newServeCmd() *cobra.Command { return serveCommand(serve) }

// serveCommand builds `serve` around run, so tests can see the resolved config.
func serveCommand(run func(*cobra.Command, serveConfig) error) *cobra.Command {
	cmd := configCommand("serve", "Run the simulator", run)
	// A flag, not a config key: a config file that wiped the data on
	// every start would surprise.
	cmd.Flags().Bool("reset-data", false, "delete the data folder's state and journal files first (its data is disposable): for a folder written by another version, which serve refuses")
	return cmd
}

// untilEOF returns a context that ends with ctx or when in reaches end of
// file. A parent that starts serve with a pipe on its standard input and
// never closes it makes the simulator die with it, however the parent
// ends: the OS closes the pipe even after SIGKILL, on every platform.
func untilEOF(ctx context.Context, in io.Reader) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		defer cancel()
		_, _ = io.Copy(io.Discard, in)
	}()
	return ctx
}

// claimDataDir makes the --data folder of --remove-data-on-exit and says
// whether serve made it: serve removes only a folder it created (issue
// 55: a second instance refused by the lock, or a folder of another
// version, was deleted under its owner). An existing folder is used and
// kept, with a line on standard error saying so.
func claimDataDir(cmd *cobra.Command, dir string) (bool, error) {
	// Clean: the parent of "d/" is the parent of d, not d.
	dir = filepath.Clean(dir)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return false, err
	}
	err := os.Mkdir(dir, 0o700)
	if errors.Is(err, fs.ErrExist) {
		fmt.Fprintf(cmd.ErrOrStderr(), "rewardsim: --remove-data-on-exit: %s already exists: serve did not create it and will not remove it\n", dir)
		return false, nil
	}
	return err == nil, err
}

// removeDataDir removes the data folder serve created, once its store is
// closed, unless another process has opened the folder since (the store's
// lock says so): saying on standard error why when it does not.
func removeDataDir(cmd *cobra.Command, dir string) {
	err := sim.ResetData(dir)
	if err == nil {
		err = os.RemoveAll(dir)
	}
	if err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "rewardsim: --remove-data-on-exit: %s not removed: %v\n", dir, err)
	}
}

// gcPercent is the GC's growth target under the memory limit.
const gcPercent = 400

func serve(cmd *cobra.Command, cfg serveConfig) error {
	// A write to a closed standard output or error (the parent that held
	// the pipes is dead) fails with EPIPE instead of killing the process
	// by SIGPIPE before it stops and removes its data folder (issue 55).
	signal.Ignore(syscall.SIGPIPE)
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	// auto signs with crypto/rsa until the listeners are bound and loads
	// libcrypto after: loading it (dlopen and OpenSSL's own start-up, about
	// 10 ms of CPU and 200 page faults here) beside start-up delayed the
	// first answer on two cores (issue 56). The back ends are byte-identical.
	auto := cfg.Crypto == sim.CryptoAuto || cfg.Crypto == ""
	crypto := cfg.Crypto
	if auto {
		crypto = sim.CryptoGo
	}
	if err := sim.UseCrypto(crypto); err != nil {
		return fmt.Errorf("--crypto: %w", err)
	}
	tuneMemory(cfg.MemoryLimit)
	// Log lines are written in batches (one write per flushEvery, not
	// one per request line: the write was a third of the line's cost,
	// issue 25), flushed when serve returns.
	logOut := newFlushingWriter(cmd.ErrOrStderr(), flushEvery)
	defer logOut.Close()
	var handler slog.Handler = slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level})
	if cfg.LogFormat == "json" {
		handler = slog.NewJSONHandler(logOut, &slog.HandlerOptions{Level: level})
	}
	log := slog.New(handler)
	opts, err := simOptions(cfg, log)
	if err != nil {
		return err
	}
	l := sim.Listen{All: cfg.Listen, Rewards: cfg.RewardsListen, Bank: cfg.BankListen, Hotdeals: cfg.HotdealsListen, Control: cfg.ControlListen}
	if l.Split() && (l.Rewards == "" || l.Bank == "" || l.Hotdeals == "") {
		return errors.New("split mode needs all three of --rewards-listen, --bank-listen and --hotdeals-listen")
	}
	// The folder serve made goes last, after the store is closed, and also
	// when the start fails: a library that asks for a fresh folder leaves
	// nothing behind.
	if cfg.RemoveDataOnExit {
		made, err := claimDataDir(cmd, cfg.Data)
		if err != nil {
			return fmt.Errorf("--data: %w", err)
		}
		if made {
			defer removeDataDir(cmd, cfg.Data)
		}
	}
	s, err := openSim(cmd, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	ctx := cmd.Context()
	if cfg.ExitOnStdinEOF {
		ctx = untilEOF(ctx, cmd.InOrStdin())
	}
	says := announce(cmd, cfg.LogFormat)
	return s.Serve(ctx, l, func(bound map[sim.Host]string) {
		says(bound)
		if auto {
			_ = sim.UseCrypto(sim.CryptoAuto)
		}
	})
}

// tuneMemory sets the runtime's soft memory limit to limit (bytes, 0
// for none), raised as the live heap needs (followLiveHeap), and, under
// it, a higher GC growth target.
func tuneMemory(limit int64) {
	// A soft limit keeps a long-running simulator's resident memory near
	// its live data under sustained load (issue 56: RssAnon <= 40 MB);
	// GOMEMLIMIT, the runtime's own setting, wins when an operator sets it.
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set && limit > 0 {
		debug.SetMemoryLimit(limit)
		// Under that limit the GC need not also run at every doubling of
		// a small live heap: at GOGC 400 make load's server CPU per
		// request fell 10 to 20% (issue 25).
		// The limit still bounds the heap; GOGC, when set, wins.
		if _, set := os.LookupEnv("GOGC"); !set {
			debug.SetGCPercent(gcPercent)
		}
		go followLiveHeap(limit)
	}
}

// followLiveHeap raises the soft limit, whenever the live heap grows,
// to what the runtime holds outside its heap (goroutine stacks above all)
// plus twice the live heap, and lowers it back to floor as they shrink:
// a limit under that keeps the collector running without pause (10,000
// calls held under a latency profile: 245 answers a second on both cores
// at the fixed 40 MiB, 5,185 on one core with no limit;
// BenchmarkLatency_tenThousandSteady), while a small live heap keeps the
// resident memory near floor. At one and a half times, the held calls'
// collector ran without pause again (2,771 answers a second); at twice,
// make load's mixed RssAnon rose from 37.7 to 42.4 MB (issue 56's 40 MB).
func followLiveHeap(floor int64) {
	names := []string{"/memory/classes/total:bytes", "/memory/classes/heap/released:bytes", "/memory/classes/heap/free:bytes",
		"/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes", "/gc/heap/live:bytes"}
	sample := make([]metrics.Sample, len(names))
	for i, n := range names {
		sample[i].Name = n
	}
	set := floor
	v := make([]int64, len(sample))
	for range time.Tick(250 * time.Millisecond) {
		metrics.Read(sample)
		for i, x := range sample {
			if x.Value.Kind() != metrics.KindUint64 {
				return
			}
			v[i] = int64(x.Value.Uint64())
		}
		outside := v[0] - v[1] - v[2] - v[3] - v[4]
		want := max(floor, outside+2*v[5])
		if want > set+set/8 || want < set-set/8 {
			debug.SetMemoryLimit(want)
			set = want
		}
	}
}

// simOptions are the simulator's options from serve's config, log its
// logger.
func simOptions(cfg serveConfig, log *slog.Logger) (sim.Options, error) {
	opts := sim.Options{DataDir: cfg.Data, ScenarioPath: cfg.Scenario, PublicURL: cfg.PublicURL, Logger: log, Version: readBuildInfo().Version}
	opts.Control.Token = cfg.ControlToken
	opts.Control.AllowedHosts = cfg.ControlAllowedHosts
	for o := range strings.SplitSeq(cfg.CORSOrigins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			opts.CORSOrigins = append(opts.CORSOrigins, o)
		}
	}
	if cfg.WebhookDeadline != "" {
		d, err := time.ParseDuration(cfg.WebhookDeadline)
		if err != nil || d <= 0 || d > sim.MaxWebhookDeadline {
			return sim.Options{}, fmt.Errorf("--webhook-deadline %q is not a positive duration of at most %s", cfg.WebhookDeadline, sim.MaxWebhookDeadline)
		}
		opts.Webhooks.Deadline = d
	}
	opts.Server = sim.ServerOptions{
		ReadTimeout: cfg.Server.ReadTimeout, WriteTimeout: cfg.Server.WriteTimeout, IdleTimeout: cfg.Server.IdleTimeout,
		MaxConns: cfg.Server.MaxConns, MaxControlConns: cfg.Server.MaxControlConns, ShutdownTimeout: cfg.Server.ShutdownTimeout,
	}
	opts.Journal = sim.JournalOptions{MaxEntries: cfg.JournalMaxEntries, MaxBytes: cfg.JournalMaxBytes, MaxAge: cfg.JournalMaxAge}
	opts.State = sim.StateOptions{Retention: cfg.StateRetention, TxHook: txHook}
	opts.Durability = sim.Durability(cfg.Durability)
	opts.DebugPprof = cfg.DebugPprof
	opts.SharedBox = cfg.SharedBox
	if (cfg.ServiceKey == "") != (cfg.ServiceCert == "") {
		return sim.Options{}, errors.New("--service-key and --service-cert go together")
	}
	if cfg.ServiceKey != "" {
		var err error
		if opts.ServiceKeyPEM, err = os.ReadFile(cfg.ServiceKey); err != nil {
			return sim.Options{}, err
		}
		if opts.ServiceCertPEM, err = os.ReadFile(cfg.ServiceCert); err != nil {
			return sim.Options{}, err
		}
	}
	return opts, nil
}

// announce prints a line per listener once all are bound: text, or
// JSON with --log-format json.
func announce(cmd *cobra.Command, logFormat string) func(bound map[sim.Host]string) {
	return func(bound map[sim.Host]string) {
		hosts := make([]string, 0, len(bound))
		for h := range bound {
			hosts = append(hosts, string(h))
		}
		sort.Strings(hosts)
		// With --log-format json every line on either stream is JSON (a
		// container merges them); the text line stays for scripts.
		var says *slog.Logger
		if logFormat == "json" {
			says = slog.New(slog.NewJSONHandler(cmd.OutOrStdout(), nil))
		}
		for _, h := range hosts {
			url := "http://" + bound[sim.Host(h)]
			if says != nil {
				says.Info("listening", "listener", h, "url", url)
				continue
			}
			fmt.Fprintf(cmd.OutOrStdout(), "rewardsim: %s listening on %s\n", h, url)
		}
	}
}

// openSim builds the simulator over its data folder, wiped first with
// --reset-data; a folder of another version's format is refused with a
// line naming that flag.
func openSim(cmd *cobra.Command, opts sim.Options) (*sim.Sim, error) {
	if reset, _ := cmd.Flags().GetBool("reset-data"); reset {
		if err := sim.ResetData(opts.DataDir); err != nil {
			return nil, fmt.Errorf("--reset-data: %w", err)
		}
	}
	s, err := sim.New(opts)
	if errors.Is(err, sim.ErrDataFormat) {
		return nil, fmt.Errorf("%w; start with --reset-data to wipe its state and journal (a simulator's data is disposable), or use another --data folder", err)
	}
	return s, err
}

// txHook is nil but in a test build (txhook.go).
var txHook func()
