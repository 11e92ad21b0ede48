package main

import (
	"encoding/base64"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim"
)

func decodeB64(s string) ([]byte, error) { return base64.StdEncoding.DecodeString(s) }

func newValidateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "validate SCENARIO...",
		Short: "Check scenario files; problems are printed with file, line, path and reason",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			bad := 0
			for _, a := range args {
				if err := sim.ValidateScenario(a); err != nil {
					fmt.Fprintln(cmd.ErrOrStderr(), err)
					bad++
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: ok\n", a)
			}
			if bad > 0 {
				return fmt.Errorf("%d of %d scenario files are invalid", bad, len(args))
			}
			return nil
		},
	}
}
