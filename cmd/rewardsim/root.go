package main

import "github.com/spf13/cobra"

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "rewardsim",
		Short:         "A hermetic contract simulator of the Rewards, Scratch Card and Coupon service",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       readBuildInfo().Version,
	}
	// --version prints the same four lines as `rewardsim version`.
	root.SetVersionTemplate(readBuildInfo().String())
	root.AddCommand(newServeCmd(), newSignCmd(), newOpenCmd(), newValidateCmd(), newKeysCmd(), newWebhookCmd(), newVersionCmd(), newOpenAPICmd(), newHealthcheckCmd())
	root.AddCommand(newReplayCmd(), newRecordCmd(), newRecordingCmd(), newReportCmd(), newDiagramCmd())
	root.AddCommand(newVerifyCmd(), newScenarioCmd())
	root.AddCommand(newFaultCmd(), newClockCmd(), newChannelCmd(), newStateCmd(), newJournalCmd(), newStoryCmd(), newSwitchCmd(), newLimitCmd(), newLatencyCmd())
	root.AddCommand(newCalibrateCmd())
	root.AddCommand(newSweepCmd())
	return root
}

// group is a command that only holds sub-commands: `rewardsim <use> ...`.
// long may be "".
func group(use, short, long string, subs ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{Use: use, Short: short, Long: long}
	cmd.AddCommand(subs...)
	return cmd
}
