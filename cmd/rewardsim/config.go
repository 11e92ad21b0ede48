package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/rewardsim/rewardsim/sim"
)

// serveConfig is everything `rewardsim serve` reads. viper is confined to
// this file: it is the binary's composition root, and sim takes plain
// Options. (DESIGN.md suggested sim/internal/config, but cmd/ cannot
// import sim/internal, so the reading lives here.)
type serveConfig struct {
	Listen, RewardsListen, BankListen, HotdealsListen, ControlListen string
	Data, Scenario, PublicURL                                        string
	ServiceKey, ServiceCert                                          string
	LogLevel, LogFormat, Crypto, Durability                          string
	DebugPprof, ExitOnStdinEOF, RemoveDataOnExit, SharedBox          bool
	CORSOrigins                                                      string
	ControlToken, WebhookDeadline                                    string
	ControlAllowedHosts                                              []string
	JournalMaxEntries                                                int
	JournalMaxBytes                                                  int64
	MemoryLimit                                                      int64
	JournalMaxAge                                                    time.Duration
	StateRetention                                                   time.Duration
	Server                                                           serverConfig
}

// serverConfig is the listeners' timeouts and connection caps.
type serverConfig struct {
	ReadTimeout, WriteTimeout, IdleTimeout, ShutdownTimeout time.Duration
	MaxConns, MaxControlConns                               int
}

// serveKeys maps each config key to its flag help and default.
var serveKeys = []struct{ key, def, help string }{
	{"listen", "127.0.0.1:8080", "one listener for the rewards, bank and hotdeals paths"},
	{"rewards-listen", "", "split mode: the rewards host alone on this address"},
	{"bank-listen", "", "split mode: the bank host alone on this address"},
	{"hotdeals-listen", "", "split mode: the hotdeals host alone on this address"},
	{"control-listen", "127.0.0.1:8090", "the control API (/__sim/)"},
	{"data", "./rewardsim-data", "folder of the bbolt state file (created if missing; locked while in use)"},
	{"durability", "process", "what an answered write survives: process (written before the answer, no fsync per commit: survives kill -9, OOM and panics; synced every second and on shutdown) or disk (fsync per group commit: survives a machine crash too)"},
	{"scenario", "", "scenario file or folder (default: the embedded scenarios/default.yaml)"},
	{"public-url", "", "base of every absolute URL handed out (default: the scheme and host of the request)"},
	{"service-key", "", "PEM private key that signs answers (default: the embedded test-only key)"},
	{"service-cert", "", "PEM certificate of --service-key"},
	{"log-level", "info", "debug, info, warn or error"},
	{"crypto", "auto", "RSA back end: libcrypto (the system's OpenSSL 3, loaded at run time), go (crypto/rsa), or auto (crypto/rsa until the listeners are bound, then libcrypto once it has loaded)"},
	{"log-format", "text", "text or json: one line per request at info, and one on start and on shutdown"},
	{"cors-origins", "", "comma-separated origins whose web pages may call the public hosts directly (CORS), or *; empty: none"},
	{"control-token", "", "if set, every control call but /__sim/health needs it (header X-Rewardsim-Control-Token or Authorization: Bearer)"},
	{"control-allowed-hosts", "", "comma-separated host names the control API answers to besides IP addresses and localhost (DNS-rebinding guard)"},
	{"webhook-deadline", "5s", "how long a publisher's webhook receiver has to answer {\"status\":\"OK\"}"},
	{"read-timeout", "30s", "longest time to read one request, headers and body"},
	{"write-timeout", "90s", "longest time from a request's headers to the end of its answer (above the longest injected delay, 1m)"},
	{"idle-timeout", "60s", "close a keep-alive connection idle this long"},
	{"max-connections", "1024", "open connections each public listener accepts at once (more wait in the backlog)"},
	{"control-max-connections", "64", "open connections the control listener accepts at once"},
	{"shutdown-timeout", "5s", "how long a stop waits for requests in flight; those still running are cut, logged, and the exit status is 1"},
	{"journal-max-entries", "100000", "keep at most this many journal entries (oldest dropped first; -1: no count bound)"},
	{"memory-limit", "40MiB", "soft limit of the Go runtime's memory, such as 40MiB (the GC works harder near it; -1: none; GOMEMLIMIT, when set, wins)"},
	{"journal-max-bytes", "64MiB", "keep at most this many bytes of journal, such as 64MiB or 1GiB (oldest dropped first; -1: no byte bound)"},
	{"journal-max-age", "0", "drop journal entries older than this simulated duration, such as 24h (0: no age bound)"},
	{"debug-pprof", "false", "serve Go's profiler (net/http/pprof) under /__sim/debug/pprof/ on the control listener, behind the control token: for performance work, not for shared use"},
	{"exit-on-stdin-eof", "false", "stop when standard input reaches end of file: a parent that starts serve with a pipe it never closes takes the simulator with it when it dies, however it dies"},
	{"remove-data-on-exit", "false", "create the --data folder and remove it when serve stops (after a signal, end of standard input, or a failed start): for a library's throw-away folder; a folder that already exists is used and never removed, nor one another process holds"},
	{"shared-box", "false", "one box for several teams' CI jobs: a channel made like another gets fresh credentials and key pair, and the credential-less routes act only on what the channel's credentialed calls issued (docs/security.md)"},
	{"state-retention", "24h", "delete tokens and sessions expired longer than this simulated duration (until then they answer as expired, after it as unknown; -1: never)"},
}

// configCommand is a command that reads serve's settings (flags,
// REWARDSIM_* environment, --config file) and runs with them.
func configCommand(use, short string, run func(*cobra.Command, serveConfig) error) *cobra.Command {
	v := viper.New()
	cmd := &cobra.Command{Use: use, Short: short, Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := readServeConfig(cmd, v)
			if err != nil {
				return err
			}
			return run(cmd, cfg)
		}}
	bindServeFlags(cmd, v)
	return cmd
}

func bindServeFlags(cmd *cobra.Command, v *viper.Viper) {
	cmd.Flags().String("config", "", "config file (YAML, JSON or TOML) with the same keys as the flags")
	for _, k := range serveKeys {
		cmd.Flags().String(k.key, k.def, k.help+" [env REWARDSIM_"+envName(k.key)+"]")
		_ = v.BindPFlag(k.key, cmd.Flags().Lookup(k.key))
	}
	// Switches a library passes alone read as true (`--exit-on-stdin-eof`);
	// `--name=false` still turns them off.
	for _, key := range []string{"exit-on-stdin-eof", "remove-data-on-exit", "shared-box"} {
		cmd.Flags().Lookup(key).NoOptDefVal = "true"
	}
	v.SetEnvPrefix("REWARDSIM")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
}

func envName(key string) string { return strings.ToUpper(strings.ReplaceAll(key, "-", "_")) }

// readServeConfig resolves flags over environment over the config file
// over defaults. Unknown keys in the file are an error, not a silent typo.
func readServeConfig(cmd *cobra.Command, v *viper.Viper) (serveConfig, error) {
	if err := readConfigFile(cmd, v); err != nil {
		return serveConfig{}, err
	}
	maxEntries, err := strconv.Atoi(v.GetString("journal-max-entries"))
	if err != nil || maxEntries == 0 {
		return serveConfig{}, fmt.Errorf("journal-max-entries: %q is not a positive number or -1", v.GetString("journal-max-entries"))
	}
	maxBytes, err := parseBytes(v.GetString("journal-max-bytes"))
	if err != nil {
		return serveConfig{}, fmt.Errorf("journal-max-bytes: %w", err)
	}
	memLimit, err := parseBytes(v.GetString("memory-limit"))
	if err != nil {
		return serveConfig{}, fmt.Errorf("memory-limit: %w", err)
	}
	srv, err := readServerConfig(v)
	if err != nil {
		return serveConfig{}, err
	}
	maxAge, err := time.ParseDuration(v.GetString("journal-max-age"))
	if err != nil || maxAge < 0 {
		return serveConfig{}, fmt.Errorf("journal-max-age: %q is not a duration such as 24h (0: no age bound)", v.GetString("journal-max-age"))
	}
	retention, err := parseRetention(v.GetString("state-retention"))
	if err != nil {
		return serveConfig{}, err
	}
	if _, err := sim.ParseDurability(v.GetString("durability")); err != nil {
		return serveConfig{}, err
	}
	bools := map[string]bool{}
	for _, key := range []string{"debug-pprof", "exit-on-stdin-eof", "remove-data-on-exit", "shared-box"} {
		b, err := strconv.ParseBool(v.GetString(key))
		if err != nil {
			return serveConfig{}, fmt.Errorf("%s: %q is not true or false", key, v.GetString(key))
		}
		bools[key] = b
	}
	format := v.GetString("log-format")
	if format != "text" && format != "json" {
		return serveConfig{}, fmt.Errorf("log-format: %q is not text or json", format)
	}
	return serveConfig{
		Listen: v.GetString("listen"), RewardsListen: v.GetString("rewards-listen"),
		BankListen: v.GetString("bank-listen"), HotdealsListen: v.GetString("hotdeals-listen"),
		ControlListen: v.GetString("control-listen"),
		Data:          v.GetString("data"), Scenario: v.GetString("scenario"), PublicURL: v.GetString("public-url"),
		ServiceKey: v.GetString("service-key"), ServiceCert: v.GetString("service-cert"),
		LogLevel: v.GetString("log-level"), LogFormat: format, CORSOrigins: v.GetString("cors-origins"), Crypto: v.GetString("crypto"), Durability: v.GetString("durability"),
		ControlToken: v.GetString("control-token"), WebhookDeadline: v.GetString("webhook-deadline"),
		ControlAllowedHosts: listOf(v, "control-allowed-hosts"),
		JournalMaxEntries:   maxEntries,
		JournalMaxBytes:     maxBytes,
		MemoryLimit:         memLimit,
		Server:              srv,
		JournalMaxAge:       maxAge,
		StateRetention:      retention,
		DebugPprof:          bools["debug-pprof"],
		ExitOnStdinEOF:      bools["exit-on-stdin-eof"],
		RemoveDataOnExit:    bools["remove-data-on-exit"],
		SharedBox:           bools["shared-box"],
	}, nil
}

// readConfigFile reads --config's file into v, if one is named, and
// refuses a key serve does not know.
func readConfigFile(cmd *cobra.Command, v *viper.Viper) error {
	if file, _ := cmd.Flags().GetString("config"); file != "" {
		v.SetConfigFile(file)
		if err := v.ReadInConfig(); err != nil {
			return fmt.Errorf("config %s: %w", file, err)
		}
		known := map[string]bool{}
		for _, k := range serveKeys {
			known[k.key] = true
		}
		var unknown []string
		for _, k := range v.AllKeys() {
			if !known[k] {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			return fmt.Errorf("config %s: unknown keys %s", file, strings.Join(unknown, ", "))
		}
	}
	return nil
}

// readServerConfig is the listeners' timeouts and connection bounds.
func readServerConfig(v *viper.Viper) (serverConfig, error) {
	var srv serverConfig
	for key, dst := range map[string]*time.Duration{"read-timeout": &srv.ReadTimeout, "write-timeout": &srv.WriteTimeout, "idle-timeout": &srv.IdleTimeout, "shutdown-timeout": &srv.ShutdownTimeout} {
		d, err := time.ParseDuration(v.GetString(key))
		if err != nil || d <= 0 {
			return serverConfig{}, fmt.Errorf("%s: %q is not a positive duration such as 30s", key, v.GetString(key))
		}
		*dst = d
	}
	for key, dst := range map[string]*int{"max-connections": &srv.MaxConns, "control-max-connections": &srv.MaxControlConns} {
		n, err := strconv.Atoi(v.GetString(key))
		if err != nil || n < 1 {
			return serverConfig{}, fmt.Errorf("%s: %q is not a positive number", key, v.GetString(key))
		}
		*dst = n
	}
	return srv, nil
}

// parseRetention reads state-retention: a positive duration, or -1 for
// never purging (sim.StateOptions takes a negative one).
func parseRetention(s string) (time.Duration, error) {
	if strings.TrimSpace(s) == "-1" {
		return -1, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("state-retention: %q is not a positive duration such as 24h, or -1 (never)", s)
	}
	return d, nil
}

// listOf reads a list: a YAML/JSON list in the file, or a comma-separated
// string (flags and env carry one string).
func listOf(v *viper.Viper, key string) []string {
	parts := strings.Split(v.GetString(key), ",")
	if _, isList := v.Get(key).([]any); isList {
		parts = v.GetStringSlice(key)
	}
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// parseBytes reads a byte count: a number with an optional KiB, MiB or
// GiB suffix, or -1 for no bound.
func parseBytes(s string) (int64, error) {
	num, mult := strings.TrimSpace(s), int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if n, ok := strings.CutSuffix(num, u.suffix); ok {
			num, mult = strings.TrimSpace(n), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || (n < 1 && n != -1) || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size such as 64MiB (-1: no bound)", s)
	}
	if n == -1 {
		return -1, nil
	}
	return n * mult, nil
}
