package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim"
)

func newReplayCmd() *cobra.Command {
	var target, keyPath string
	var secrets, masks []string
	cmd := &cobra.Command{
		Use:   "replay SESSION...",
		Short: "Re-send recorded sessions to a target and print every difference (exit 1 on any)",
		Long: `Replay re-sends each recorded session (SIM-4) to --target, feeding captured tokens
and ids into later requests and re-signing envelopes whose payload changed, and
compares every answer with the recorded one. Volatile fields (tokens, ids,
signatures, times) are masked; see the README for the list, extend it with --mask.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := sim.ReplayOptions{Target: target, Secrets: secrets, Masks: map[string]string{}}
			if keyPath != "" {
				var err error
				if o.PublisherKeyPEM, err = os.ReadFile(keyPath); err != nil {
					return err
				}
			}
			for _, m := range masks {
				k, v, ok := strings.Cut(m, "=")
				if !ok {
					return fmt.Errorf("--mask %q: want FIELD=KIND", m)
				}
				o.Masks[k] = v
			}
			failed := 0
			for _, path := range args {
				data, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				res, err := sim.Replay(cmd.Context(), data, o)
				if err != nil {
					return fmt.Errorf("%s: %w", path, err)
				}
				fmt.Fprint(cmd.OutOrStdout(), res.Report)
				if !res.OK() {
					failed++
				}
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d sessions differ", failed, len(args))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&target, "target", "http://127.0.0.1:8080", "base URL of the service, or three: rewards,bank,hotdeals")
	cmd.Flags().StringVar(&keyPath, "key", "", "publisher private key, PEM, to re-sign envelopes (default: the embedded test-only DEMOBANK key)")
	cmd.Flags().StringArrayVar(&secrets, "secret", nil, "a credential the session holds as a fingerprint, such as APPKEY:SECKEY (repeatable; default: the default scenario's DEMOBANK keys)")
	cmd.Flags().StringArrayVar(&masks, "mask", nil, "FIELD=value|digits|ignore|none: extend the mask list (repeatable)")
	return cmd
}

func newRecordCmd() *cobra.Command {
	var upstream, listen, out, name string
	cmd := &cobra.Command{
		Use:   "record",
		Short: "Proxy a publisher's traffic to an upstream service and write it as a session file",
		Long: `Record listens on --listen, forwards every request to --upstream (a real UAT or
another rewardsim; one URL, or rewards,bank,hotdeals) and, when stopped with
Ctrl-C or SIGTERM, writes the exchanges as a session file to --out.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rec, err := sim.NewRecorder(sim.RecorderOptions{Upstream: upstream})
			if err != nil {
				return err
			}
			if name == "" {
				name = strings.TrimSuffix(filepath.Base(out), filepath.Ext(out))
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return err
			}
			srv := &http.Server{Handler: rec, ReadHeaderTimeout: 10 * time.Second}
			go func() { _ = srv.Serve(ln) }()
			fmt.Fprintf(cmd.OutOrStdout(), "rewardsim record: proxying http://%s to %s; Ctrl-C writes %s\n", ln.Addr(), upstream, out)
			<-cmd.Context().Done()
			shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(shutdown)
			data, err := rec.Recording(name, "recorded through rewardsim record from "+upstream)
			if err != nil {
				return err
			}
			if err := writeFile(out, data); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "rewardsim record: %d exchanges written to %s\n", rec.Len(), out)
			return nil
		},
	}
	cmd.Flags().StringVar(&upstream, "upstream", "", "service to forward to: one URL, or rewards,bank,hotdeals")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8070", "address the publisher calls instead of the service")
	cmd.Flags().StringVar(&out, "out", "fixtures/sessions/recorded.json", "session file to write")
	cmd.Flags().StringVar(&name, "name", "", "session name (default: the file name)")
	_ = cmd.MarkFlagRequired("upstream")
	return cmd
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// controlGet calls the control API and returns the answer body.
func controlGet(ctx context.Context, base, path string, q url.Values) ([]byte, error) {
	u := strings.TrimRight(base, "/") + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d: %s", u, res.StatusCode, strings.TrimSpace(string(data)))
	}
	return data, nil
}

func newSessionCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "session", Short: "Work with recorded sessions"}
	var control, out, name, channel, virtualID, endpoint, from, to string
	export := &cobra.Command{
		Use:   "export",
		Short: "Write a slice of a running simulator's journal as a session file",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if name == "" {
				name = strings.TrimSuffix(filepath.Base(out), filepath.Ext(out))
			}
			q := url.Values{"name": {name}}
			for k, v := range map[string]string{"channel": channel, "virtualId": virtualID, "endpoint": endpoint, "from": from, "to": to} {
				if v != "" {
					q.Set(k, v)
				}
			}
			data, err := controlGet(cmd.Context(), control, "/__sim/session", q)
			if err != nil {
				return err
			}
			if err := writeFile(out, data); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "session %s written to %s\n", name, out)
			return nil
		},
	}
	export.Flags().StringVar(&control, "control", "http://127.0.0.1:8090", "control API of the running simulator")
	export.Flags().StringVar(&out, "out", "fixtures/sessions/session.json", "session file to write")
	export.Flags().StringVar(&name, "name", "", "session name (default: the file name)")
	export.Flags().StringVar(&channel, "channel", "", "only this channel (name or CHANNELID)")
	export.Flags().StringVar(&virtualID, "virtual-id", "", "only this user")
	export.Flags().StringVar(&endpoint, "endpoint", "", "only this operation or path")
	export.Flags().StringVar(&from, "from", "", "only from this time (RFC 3339, simulated time)")
	export.Flags().StringVar(&to, "to", "", "only before this time (RFC 3339, simulated time)")
	cmd.AddCommand(export)
	return cmd
}

// reportDoc is the part of GET /__sim/report the command reads.
type reportDoc struct {
	Exchanges      int    `json:"exchanges"`
	JournalDropped uint64 `json:"journalDropped"`
	Findings       []struct {
		Clause, Severity, Title string
		Count                   int
		Example                 struct {
			Seq    uint64
			Method string
			Path   string
			Detail string
		}
	} `json:"findings"`
}

var severityRank = map[string]int{"info": 1, "warning": 2, "error": 3}

func newReportCmd() *cobra.Command {
	var control, channel, failOn string
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Print the conformance report of a running simulator; exit 1 on findings of --fail-on severity",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			min, ok := severityRank[failOn]
			if !ok && failOn != "none" {
				return fmt.Errorf("--fail-on %q: want error, warning, info or none", failOn)
			}
			q := url.Values{}
			if channel != "" {
				q.Set("channel", channel)
			}
			data, err := controlGet(cmd.Context(), control, "/__sim/report", q)
			if err != nil {
				return err
			}
			var r reportDoc
			if err := json.Unmarshal(data, &r); err != nil {
				return fmt.Errorf("report: %w", err)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "conformance report: %d exchanges, %d finding(s)\n", r.Exchanges, len(r.Findings))
			if r.JournalDropped > 0 {
				fmt.Fprintf(w, "warning: the journal dropped %d exchanges under overload; findings may be missing\n", r.JournalDropped)
			}
			failing := 0
			for _, f := range r.Findings {
				fmt.Fprintf(w, "%-7s %-6s x%d  %s\n        e.g. #%d %s %s: %s\n", f.Severity, f.Clause, f.Count, f.Title, f.Example.Seq, f.Example.Method, f.Example.Path, f.Example.Detail)
				if failOn != "none" && severityRank[f.Severity] >= min {
					failing++
				}
			}
			if failing > 0 {
				return errors.New(fmt.Sprint(failing, " finding(s) of severity ", failOn, " or worse"))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&control, "control", "http://127.0.0.1:8090", "control API of the running simulator")
	cmd.Flags().StringVar(&channel, "channel", "", "only this channel (name or CHANNELID)")
	cmd.Flags().StringVar(&failOn, "fail-on", "error", "exit 1 when a finding of this severity or worse exists: error, warning, info or none")
	return cmd
}
