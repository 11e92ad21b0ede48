package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"
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
			host, port, err := net.SplitHostPort(addr)
			if err != nil {
				return fmt.Errorf("--control %q: %w", addr, err)
			}
			if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
				host = "127.0.0.1" // a wildcard listener answers on loopback
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 3*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+net.JoinHostPort(host, port)+"/__sim/health", nil)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				return err
			}
			defer res.Body.Close()
			var h struct{ Status, Version string }
			if err := json.NewDecoder(res.Body).Decode(&h); err != nil || res.StatusCode != http.StatusOK || h.Status != "ok" {
				return fmt.Errorf("health: HTTP %d, status %q", res.StatusCode, h.Status)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "ok %s\n", h.Version)
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "control", cmp.Or(os.Getenv("REWARDSIM_CONTROL_LISTEN"), "127.0.0.1:8090"),
		"the control listener's address [env REWARDSIM_CONTROL_LISTEN]")
	return cmd
}
