package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim/controlapi"
)

// clockAnswer is the control API's clock answer.
type clockAnswer struct {
	Channel       string `json:"channel"`
	Own           bool   `json:"own"`
	Now           string `json:"now"`
	Mode          string `json:"mode"`
	Offset        string `json:"offset"`
	FiredWebhooks int    `json:"firedWebhooks"`
}

func (c clockAnswer) String() string {
	line := "now " + c.Now + " (" + c.Mode
	if c.Mode == "offset" {
		line += " " + c.Offset
	}
	line += ")"
	switch {
	case c.Channel != "" && c.Own:
		line += ", channel " + c.Channel + "'s own clock"
	case c.Channel != "":
		line += ", channel " + c.Channel + " follows the global clock"
	}
	if c.FiredWebhooks > 0 {
		line += fmt.Sprintf("; %d webhook push(es) became due", c.FiredWebhooks)
	}
	return line
}

var printClock = decoded(func(c clockAnswer) string { return c.String() })

func newClockCmd() *cobra.Command {
	cmd := channelVerb("clock [--channel C]", "Show, move, set or release the simulated clock, global or one channel's own (/__sim/clock)",
		"that channel's time (its own clock, or the global one it follows)", cobra.NoArgs,
		func(cmd *cobra.Command, v *verb, channel string, _ []string) error {
			return v.show(cmd, printClock)(v.Clock(cmd.Context(), channel))
		})
	cmd.AddCommand(newClockAdvanceCmd(), newClockSetCmd(), newClockRealCmd())
	return cmd
}

// clockSub is a clock subcommand: its --channel moves that channel's own clock.
func clockSub(use, short string, args cobra.PositionalArgs, run func(cmd *cobra.Command, v *verb, channel string, args []string) error) *cobra.Command {
	return channelVerb(use, short, "move only this channel's own clock (made on first use)", args, run)
}

func newClockAdvanceCmd() *cobra.Command {
	return clockSub("advance DURATION [--channel C]", "Move the clock forward (31m, 2h, 90s): tokens expire, windows open, pushes fall due",
		cobra.ExactArgs(1), func(cmd *cobra.Command, v *verb, channel string, args []string) error {
			if _, err := time.ParseDuration(args[0]); err != nil {
				return fmt.Errorf("%q is not a duration like 90s, 31m, 2h", args[0])
			}
			return v.show(cmd, printClock)(v.AdvanceClock(cmd.Context(), controlapi.ClockMove{By: args[0], Channel: channel}))
		})
}

func newClockSetCmd() *cobra.Command {
	var frozen bool
	cmd := clockSub("set TIME [--frozen] [--channel C]", "Set the clock to an RFC 3339 time; it runs on from there (offset), or stands still with --frozen",
		cobra.ExactArgs(1), func(cmd *cobra.Command, v *verb, channel string, args []string) error {
			t, err := time.Parse(time.RFC3339, args[0])
			if err != nil {
				return fmt.Errorf("%q is not an RFC 3339 time like 2026-01-15T10:00:00+05:30", args[0])
			}
			mode := "offset"
			if frozen {
				mode = "frozen"
			}
			return v.show(cmd, printClock)(v.SetClock(cmd.Context(), controlapi.ClockMove{Mode: mode, Time: t.Format(time.RFC3339Nano), Channel: channel}))
		})
	cmd.Flags().BoolVar(&frozen, "frozen", false, "stand still at TIME until moved")
	return cmd
}

func newClockRealCmd() *cobra.Command {
	return clockSub("real [--channel C]", "Back to real time; with --channel, the channel follows the global clock again",
		cobra.NoArgs, func(cmd *cobra.Command, v *verb, channel string, _ []string) error {
			if channel != "" {
				return v.show(cmd, printClock)(v.DropClock(cmd.Context(), channel))
			}
			return v.show(cmd, printClock)(v.SetClock(cmd.Context(), controlapi.ClockMove{Mode: "real"}))
		})
}
