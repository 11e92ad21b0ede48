package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/controlapi"
)

func newScenarioCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "scenario", Short: "Scenarios of a running simulator: show, ls, load, activate"}
	var cc controlClient
	show := &cobra.Command{
		Use:   "show NAME",
		Short: "Print a scenario loaded in a running simulator (as in force, secrets masked), else an embedded one (default)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := controlapi.Body(cc.Scenario(cmd.Context(), args[0]))
			if err == nil {
				_, err = cmd.OutOrStdout().Write(out)
				return err
			}
			if b, ok := sim.EmbeddedScenario(args[0]); ok {
				_, err = cmd.OutOrStdout().Write(b)
				return err
			}
			return errors.Join(fmt.Errorf("no scenario named %q is embedded", args[0]), err)
		},
	}
	addControlFlags(show, &cc)
	cmd.AddCommand(show, newScenarioLsCmd(), newScenarioLoadCmd(), newScenarioActivateCmd())
	return cmd
}
