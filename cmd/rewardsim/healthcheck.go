package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim/controlapi"
)

// newHealthcheckCmd probes /__sim/health of a running serve: the image's
// HEALTHCHECK, which has no curl to lean on.
func newHealthcheckCmd() *cobra.Command {
	var addr string
	cmd := &cobra.Command{
		Use:   "healthcheck",
		Short: "Exit 0 if the simulator's /__sim/health answers ok (the container image's health check)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			base, err := controlBase(addr)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 3*time.Second)
			defer cancel()
			// The control API's client: no redirect to another host is followed.
			ans, err := (&controlapi.Client{Base: base}).Health(ctx)
			if err != nil {
				return err
			}
			var h struct{ Status, Version string }
			if err := json.Unmarshal(ans.Body, &h); err != nil || ans.Status != http.StatusOK || h.Status != "ok" {
				return fmt.Errorf("health: HTTP %d, status %q", ans.Status, h.Status)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "ok %s\n", h.Version)
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "control", cmp.Or(os.Getenv("REWARDSIM_CONTROL_LISTEN"), "127.0.0.1:8090"),
		"the control listener: host:port or a URL such as http://rewardsim:8090 [env REWARDSIM_CONTROL_LISTEN]")
	return cmd
}

// controlBase turns --control (host:port, as REWARDSIM_CONTROL_LISTEN
// says it, or a URL, as the docs' $CONTROL says it) into a base URL; a
// wildcard or empty host means this machine's loopback.
func controlBase(addr string) (string, error) {
	scheme, hostport := "http", addr
	if strings.Contains(addr, "://") {
		u, err := url.Parse(addr)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", fmt.Errorf("--control %q: not an http(s) URL or host:port", addr)
		}
		scheme, hostport = u.Scheme, u.Host
		if u.Port() == "" {
			hostport = net.JoinHostPort(u.Hostname(), map[string]string{"http": "80", "https": "443"}[u.Scheme])
		}
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", fmt.Errorf("--control %q: %w (give host:port or a URL)", addr, err)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1" // a wildcard listener answers on loopback
	}
	return scheme + "://" + net.JoinHostPort(host, port), nil
}
