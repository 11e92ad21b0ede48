package main

import "github.com/spf13/cobra"

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "rewardsim",
		Short:         "A hermetic contract simulator of the Rewards, Scratch Card and Coupon service",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newServeCmd(), newSignCmd(), newOpenCmd(), newValidateCmd(), newKeysCmd(), newWebhookCmd())
	root.AddCommand(newReplayCmd(), newRecordCmd(), newRecordingCmd(), newReportCmd())
	return root
}
