package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

// serveConfig is everything `rewardsim serve` reads. viper is confined to
// this file: it is the binary's composition root, and sim takes plain
// Options. (DESIGN.md suggested sim/internal/config, but cmd/ cannot
// import sim/internal, so the reading lives here.)
type serveConfig struct {
	Listen, RewardsListen, BankListen, HotdealsListen, ControlListen string
	Data, Scenario, PublicURL                                        string
	ServiceKey, ServiceCert                                          string
	LogLevel, LogFormat                                              string
	CORSOrigins                                                      string
	ControlToken, WebhookDeadline                                    string
	JournalMaxEntries                                                int
	JournalMaxAge                                                    time.Duration
}

// serveKeys maps each config key to its flag help and default.
var serveKeys = []struct{ key, def, help string }{
	{"listen", "127.0.0.1:8080", "one listener for the rewards, bank and hotdeals paths"},
	{"rewards-listen", "", "split mode: the rewards host alone on this address"},
	{"bank-listen", "", "split mode: the bank host alone on this address"},
	{"hotdeals-listen", "", "split mode: the hotdeals host alone on this address"},
	{"control-listen", "127.0.0.1:8090", "the control API (/__sim/)"},
	{"data", "./rewardsim-data", "folder of the bbolt state file (created if missing; locked while in use)"},
	{"scenario", "", "scenario file or folder (default: the embedded scenarios/default.yaml)"},
	{"public-url", "", "base of every absolute URL handed out (default: the scheme and host of the request)"},
	{"service-key", "", "PEM private key that signs answers (default: the embedded test-only key)"},
	{"service-cert", "", "PEM certificate of --service-key"},
	{"log-level", "info", "debug, info, warn or error"},
	{"log-format", "text", "text or json: one line per request at info, and one on start and on shutdown"},
	{"cors-origins", "", "comma-separated origins whose web pages may call the public hosts directly (CORS), or *; empty: none"},
	{"control-token", "", "if set, every control call but /__sim/health needs it (header X-Rewardsim-Control-Token or Authorization: Bearer)"},
	{"webhook-deadline", "5s", "how long a publisher's webhook receiver has to answer {\"status\":\"OK\"}"},
	{"journal-max-entries", "100000", "keep at most this many journal entries (oldest dropped first; -1: no count bound)"},
	{"journal-max-age", "0", "drop journal entries older than this simulated duration, such as 24h (0: no age bound)"},
}

func bindServeFlags(cmd *cobra.Command, v *viper.Viper) {
	cmd.Flags().String("config", "", "config file (YAML, JSON or TOML) with the same keys as the flags")
	for _, k := range serveKeys {
		cmd.Flags().String(k.key, k.def, k.help+" [env REWARDSIM_"+envName(k.key)+"]")
		_ = v.BindPFlag(k.key, cmd.Flags().Lookup(k.key))
	}
	v.SetEnvPrefix("REWARDSIM")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
}

func envName(key string) string { return strings.ToUpper(strings.ReplaceAll(key, "-", "_")) }

// readServeConfig resolves flags over environment over the config file
// over defaults. Unknown keys in the file are an error, not a silent typo.
func readServeConfig(cmd *cobra.Command, v *viper.Viper) (serveConfig, error) {
	if file, _ := cmd.Flags().GetString("config"); file != "" {
		v.SetConfigFile(file)
		if err := v.ReadInConfig(); err != nil {
			return serveConfig{}, fmt.Errorf("config %s: %w", file, err)
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
			return serveConfig{}, fmt.Errorf("config %s: unknown keys %s", file, strings.Join(unknown, ", "))
		}
	}
	maxEntries, err := strconv.Atoi(v.GetString("journal-max-entries"))
	if err != nil || maxEntries == 0 {
		return serveConfig{}, fmt.Errorf("journal-max-entries: %q is not a positive number or -1", v.GetString("journal-max-entries"))
	}
	maxAge, err := time.ParseDuration(v.GetString("journal-max-age"))
	if err != nil || maxAge < 0 {
		return serveConfig{}, fmt.Errorf("journal-max-age: %q is not a duration such as 24h (0: no age bound)", v.GetString("journal-max-age"))
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
		LogLevel: v.GetString("log-level"), LogFormat: format, CORSOrigins: v.GetString("cors-origins"),
		ControlToken: v.GetString("control-token"), WebhookDeadline: v.GetString("webhook-deadline"),
		JournalMaxEntries: maxEntries,
		JournalMaxAge:     maxAge,
	}, nil
}
